// Package flawed is a small payments API with the Idempotency-Key
// protocol, correct but for at most one flaw chosen when it is made: the
// servers that retrylab check's tests, and the handbook's worked
// examples, point the checker at. Each flaw is one a real server has had,
// and each must fail exactly the check named for it.
//
//	POST any path   {"amount": 2500, "currency": "usd"}
//	                Authorization: Bearer TOKEN (the account)
//	                Idempotency-Key: KEY (required)
//
// A payment takes Server.Work, the card network's time, during which the
// key is in flight. Ids are pay_1, pay_2, ... in the order payments are
// made, so that a run's answers read the same every time.
package flawed

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"
)

// A Flaw is what a Server gets wrong.
type Flaw string

const (
	// None: the server is correct.
	None Flaw = ""
	// Race looks a key up, charges, then saves the key, with no claim
	// between: duplicates that arrive during the charge all find nothing
	// and all charge.
	Race Flaw = "race"
	// NoFingerprint keeps no fingerprint of the body: a used key with
	// another body gets the first body's answer.
	NoFingerprint Flaw = "no-fingerprint"
	// SharedKeys keys its store by the key alone, not by account and key:
	// one account's key answers another account's request.
	SharedKeys Flaw = "shared-keys"
	// InFlight runs a duplicate that finds its key still in flight,
	// charging again under the first payment's id, instead of refusing it
	// with 409.
	InFlight Flaw = "in-flight"
	// ReplayStatus answers a replay with 200 where the first answer was
	// 201.
	ReplayStatus Flaw = "replay-status"
	// AnyKey takes any key at all: too long, with control characters, or
	// outside ASCII.
	AnyKey Flaw = "any-key"
)

// DefaultWork is how long a payment takes unless told otherwise: 300
// ms, long enough that every request of the concurrent check's burst
// arrives while the first is in flight, even on a loaded machine.
const DefaultWork = 300 * time.Millisecond

// Flaws are every flaw, in the order of the checks that find them.
var Flaws = []Flaw{ReplayStatus, Race, InFlight, NoFingerprint, SharedKeys, AnyKey}

// Server is the API. Make it with New.
type Server struct {
	flaw Flaw
	work time.Duration

	mu       sync.Mutex
	payments int // the last id's number
	charges  int
	keys     map[string]*record
}

// record is what the store holds for a key.
type record struct {
	fingerprint string
	id          string
	done        bool
	status      int
	body        []byte
}

// New returns a server with the flaw, whose payments take work.
func New(flaw Flaw, work time.Duration) *Server {
	return &Server{flaw: flaw, work: work, keys: map[string]*record{}}
}

// Charges returns how many times the server charged a card.
func (s *Server) Charges() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.charges
}

// maxKey is the longest key taken: 255 characters, as Stripe's.
const maxKey = 255

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", "POST")
		problem(w, http.StatusMethodNotAllowed, "POST only")
		return
	}
	account, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok || account == "" {
		problem(w, http.StatusUnauthorized, "send Authorization: Bearer TOKEN")
		return
	}
	keys := r.Header.Values("Idempotency-Key")
	if len(keys) != 1 {
		problem(w, http.StatusBadRequest, "send one Idempotency-Key")
		return
	}
	key := keys[0]
	if err := s.checkKey(key); err != nil {
		problem(w, http.StatusBadRequest, err.Error())
		return
	}
	var p struct {
		Amount   int64
		Currency string
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 64<<10))
	if err != nil || json.Unmarshal(body, &p) != nil || p.Amount <= 0 || p.Currency == "" {
		problem(w, http.StatusBadRequest, `send {"amount": N, "currency": "..."}`)
		return
	}
	fingerprint := fmt.Sprintf("%d %s", p.Amount, p.Currency)
	store := account + "\x00" + key
	if s.flaw == SharedKeys {
		store = key
	}
	if s.flaw == Race {
		s.raceCharge(w, store, fingerprint, p.Amount, p.Currency)
		return
	}

	s.mu.Lock()
	rec := s.keys[store]
	if rec == nil {
		rec = &record{fingerprint: fingerprint, id: s.newID()}
		s.keys[store] = rec
		s.mu.Unlock()
		s.charge()
		s.finish(w, rec, p.Amount, p.Currency)
		return
	}
	s.mu.Unlock()
	s.answerKnown(w, rec, fingerprint, p.Amount, p.Currency)
}

func (s *Server) checkKey(key string) error {
	if key == "" {
		return errors.New("the Idempotency-Key is empty")
	}
	if s.flaw == AnyKey {
		return nil
	}
	if len(key) > maxKey {
		return errors.New("the Idempotency-Key is longer than 255 characters")
	}
	for i := range len(key) {
		if key[i] < 0x20 || key[i] > 0x7e {
			return errors.New("the Idempotency-Key must be printable ASCII")
		}
	}
	return nil
}

// answerKnown answers a request whose key the store holds.
func (s *Server) answerKnown(w http.ResponseWriter, rec *record, fingerprint string, amount int64, currency string) {
	s.mu.Lock()
	done, status, body := rec.done, rec.status, rec.body
	s.mu.Unlock()
	switch {
	case s.flaw != NoFingerprint && rec.fingerprint != fingerprint:
		problem(w, http.StatusUnprocessableEntity, "this key was used with another body")
	case !done && s.flaw == InFlight:
		s.charge() // the flaw: the duplicate charges again
		writeJSON(w, http.StatusCreated, false, paymentBody(rec.id, amount, currency))
	case !done:
		w.Header().Set("Retry-After", "1")
		problem(w, http.StatusConflict, "a request with this key is in flight")
	default:
		if s.flaw == ReplayStatus {
			status = http.StatusOK // the flaw
		}
		writeJSON(w, status, true, body)
	}
}

// raceCharge is the Race flaw's whole protocol: look, charge, save.
func (s *Server) raceCharge(w http.ResponseWriter, store, fingerprint string, amount int64, currency string) {
	s.mu.Lock()
	rec := s.keys[store]
	s.mu.Unlock()
	if rec != nil {
		s.answerKnown(w, rec, fingerprint, amount, currency)
		return
	}
	s.charge() // duplicates arriving now find no record either
	s.mu.Lock()
	rec = &record{fingerprint: fingerprint, id: s.newID()}
	s.keys[store] = rec
	s.mu.Unlock()
	s.finish(w, rec, amount, currency)
}

// finish saves a new payment's answer on its record and sends it.
func (s *Server) finish(w http.ResponseWriter, rec *record, amount int64, currency string) {
	body := paymentBody(rec.id, amount, currency)
	s.mu.Lock()
	rec.done, rec.status, rec.body = true, http.StatusCreated, body
	s.mu.Unlock()
	writeJSON(w, http.StatusCreated, false, body)
}

// charge charges the card: it takes the server's work time.
func (s *Server) charge() {
	time.Sleep(s.work)
	s.mu.Lock()
	s.charges++
	s.mu.Unlock()
}

// newID returns the next payment's id; s.mu must be held.
func (s *Server) newID() string {
	s.payments++
	return fmt.Sprintf("pay_%d", s.payments)
}

func paymentBody(id string, amount int64, currency string) []byte {
	b, _ := json.Marshal(struct {
		ID       string `json:"id"`
		Amount   int64  `json:"amount"`
		Currency string `json:"currency"`
	}{id, amount, currency})
	return b
}

func writeJSON(w http.ResponseWriter, status int, replayed bool, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	if replayed {
		w.Header().Set("Idempotent-Replayed", "true")
	}
	w.WriteHeader(status)
	w.Write(body)
}

func problem(w http.ResponseWriter, status int, detail string) {
	b, _ := json.Marshal(struct {
		Title  string `json:"title"`
		Status int    `json:"status"`
		Detail string `json:"detail"`
	}{http.StatusText(status), status, detail})
	w.Header().Set("Content-Type", "application/problem+json")
	w.WriteHeader(status)
	w.Write(b)
}

// Handler serves a Server of each flaw under a path of its own,
// /FLAW/payments (such as /race/payments), and a correct one under
// /correct/payments, each payment taking work.
func Handler(work time.Duration) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/correct/payments", New(None, work))
	for _, f := range Flaws {
		mux.Handle("/"+string(f)+"/payments", New(f, work))
	}
	return mux
}
