package sqlstore

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"
)

// waiters counts the statements waiting for a turn.
func (t *turns) waiters() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := 0
	for _, q := range t.waiting {
		n += len(q)
	}
	return n
}

// An account with many statements waiting takes one turn in each round:
// another account's one statement comes after at most one of its.
func TestTurnsGoRoundTheAccounts(t *testing.T) {
	tt := turns{slots: 1}
	ctx := context.Background()
	if err := tt.enter(ctx, "busy"); err != nil { // the turn now running
		t.Fatal(err)
	}
	var mu sync.Mutex
	var order []string
	var wg sync.WaitGroup
	for i, w := range [][2]string{{"busy", "a1"}, {"busy", "a2"}, {"busy", "a3"}, {"busy", "a4"}, {"quiet", "b1"}, {"other", "c1"}} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tt.enter(ctx, w[0])
			mu.Lock()
			order = append(order, w[1])
			mu.Unlock()
			tt.leave()
		}()
		for tt.waiters() < i+1 { // it waits: the order of arrival is known
			time.Sleep(time.Millisecond)
		}
	}
	tt.leave()
	wg.Wait()
	if got := strings.Join(order, ","); got != "a1,b1,c1,a2,a3,a4" {
		t.Fatalf("turns %s, want a1,b1,c1,a2,a3,a4: one of busy's, then each other account's", got)
	}
}

// A waiter whose context ends leaves the queue, and a turn handed to it
// as it gave up goes on to the next.
func TestTurnsGivenUp(t *testing.T) {
	tt := turns{slots: 1}
	tt.enter(context.Background(), "a")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- tt.enter(ctx, "b") }()
	time.Sleep(10 * time.Millisecond)
	cancel()
	if err := <-done; err == nil {
		t.Fatal("a waiter whose context ended got the turn")
	}
	tt.leave()
	if err := tt.enter(context.Background(), "c"); err != nil || tt.held != 1 {
		t.Fatalf("after the one who gave up: %v", err)
	}
}

// A pool of n connections runs n turns at once, and the next waits.
func TestTurnsOfAPool(t *testing.T) {
	tt := turns{slots: 3}
	for i := range 3 {
		if err := tt.enter(context.Background(), "a"); err != nil {
			t.Fatalf("turn %d of 3: %v", i, err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := tt.enter(ctx, "b"); err == nil {
		t.Fatal("a fourth turn ran beside three, with three connections")
	}
	tt.leave()
	if err := tt.enter(context.Background(), "b"); err != nil {
		t.Fatal(err)
	}
}
