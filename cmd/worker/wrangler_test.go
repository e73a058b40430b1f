//go:build !(js && wasm)

package main

import (
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// startWrangler builds the worker as build/worker/build.sh does and runs
// it under wrangler dev --local, with a local D1 database of its own, on a
// free loopback port, until the test ends. Each of vars, NAME:VALUE,
// overrides one of wrangler.toml's [vars]. It returns the worker's base
// URL.
//
// It needs build/worker/node_modules (npm ci there; build/install-deps.sh
// does it) and fails without, unless RETRYLAB_NO_WRANGLER=1.
func startWrangler(t *testing.T, vars ...string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: the worker test builds a WebAssembly module and starts wrangler")
	}
	dir, err := filepath.Abs("../../build/worker")
	if err != nil {
		t.Fatal(err)
	}
	wrangler := filepath.Join(dir, "node_modules", ".bin", "wrangler")
	if _, err := os.Stat(wrangler); err != nil {
		if os.Getenv("RETRYLAB_NO_WRANGLER") == "1" {
			t.Skip("RETRYLAB_NO_WRANGLER=1: skipping the worker test")
		}
		t.Fatalf("no wrangler at %s: run build/install-deps.sh (npm ci in build/worker), or set RETRYLAB_NO_WRANGLER=1 to skip", wrangler)
	}
	if out, err := exec.Command(filepath.Join(dir, "build.sh")).CombinedOutput(); err != nil {
		t.Fatalf("build.sh: %v\n%s", err, out)
	}

	state := t.TempDir()
	env := append(os.Environ(), "WRANGLER_SEND_METRICS=false", "WRANGLER_LOG_PATH="+filepath.Join(state, "logs"))
	d1 := exec.Command(wrangler, "d1", "execute", "retrylab", "--local", "--persist-to", state, "--file", "schema.sql")
	d1.Dir, d1.Env = dir, env
	if out, err := d1.CombinedOutput(); err != nil {
		t.Fatalf("wrangler d1 execute: %v\n%s", err, out)
	}

	port := freePort(t)
	base := "http://127.0.0.1:" + strconv.Itoa(port)
	logFile, err := os.Create(filepath.Join(state, "wrangler.log"))
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"dev", "--local", "--ip", "127.0.0.1", "--port", strconv.Itoa(port),
		"--persist-to", state, "--show-interactive-dev-session=false"}
	for _, v := range vars {
		args = append(args, "--var", v)
	}
	dev := exec.Command(wrangler, args...)
	dev.Dir, dev.Env, dev.Stdout, dev.Stderr = dir, env, logFile, logFile
	dev.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // wrangler starts workerd: stop both
	if err := dev.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		syscall.Kill(-dev.Process.Pid, syscall.SIGTERM)
		done := make(chan struct{})
		go func() { dev.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			syscall.Kill(-dev.Process.Pid, syscall.SIGKILL)
			<-done
		}
		logFile.Close()
		if t.Failed() {
			log, _ := os.ReadFile(logFile.Name())
			t.Logf("wrangler dev's output:\n%s", log)
		}
	})
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(250 * time.Millisecond) {
		if resp, err := http.Get(base + "/"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("wrangler dev did not answer within 2 minutes")
		}
	}
	return base
}

func freePort(t *testing.T) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
