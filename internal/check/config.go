package check

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"time"
)

// withDefaults checks cfg, in the words of retrylab check's flags, and
// fills in what it leaves out: Body,
// IDField and Concurrency by the defaults above; each token by a new
// random one (a new account, on the sandbox API); OtherBody by Body with
// another amount, when Body has a number "amount".
func (cfg Config) withDefaults() (Config, error) {
	if len(bytes.TrimSpace(cfg.Body)) == 0 {
		cfg.Body = []byte(DefaultBody)
	}
	if cfg.IDField == "" {
		cfg.IDField = DefaultIDField
	}
	if cfg.Concurrency == 0 {
		cfg.Concurrency = DefaultConcurrency
	}
	if cfg.Token == "" {
		cfg.Token = randomToken()
	}
	if cfg.OtherToken == "" {
		cfg.OtherToken = randomToken()
	}
	body, err := compactJSON(cfg.Body)
	if err != nil {
		return cfg, fmt.Errorf("--body is not JSON: %w", err)
	}
	cfg.Body = body
	if len(bytes.TrimSpace(cfg.OtherBody)) == 0 {
		if cfg.OtherBody, err = anotherAmount(body); err != nil {
			return cfg, fmt.Errorf("--body %s %w: give --other-body, a body that differs, for the mismatch check", body, err)
		}
	} else if cfg.OtherBody, err = compactJSON(cfg.OtherBody); err != nil {
		return cfg, fmt.Errorf("--other-body is not JSON: %w", err)
	}
	switch {
	case sameJSON(cfg.Body, cfg.OtherBody):
		return cfg, errors.New("--other-body is the same JSON as --body: the mismatch check needs a body that differs")
	case cfg.Concurrency < MinConcurrency || cfg.Concurrency > MaxConcurrency:
		return cfg, fmt.Errorf("--concurrency %d: give %d to %d", cfg.Concurrency, MinConcurrency, MaxConcurrency)
	case cfg.TTL != 0 && (cfg.TTL < MinTTL || cfg.TTL > MaxTTL):
		return cfg, fmt.Errorf("--ttl %v: give %v to %v (the expiry check waits that long)", cfg.TTL, MinTTL, MaxTTL)
	case strings.TrimSpace(cfg.IDField) != cfg.IDField || strings.Contains("."+cfg.IDField+".", ".."):
		return cfg, fmt.Errorf("--id-field %q: give a member name, or names joined by dots", cfg.IDField)
	}
	return cfg, nil
}

// randomToken is a new account's bearer token.
func randomToken() string {
	var b [12]byte
	rand.Read(b[:])
	return "sk_test_check_" + hex.EncodeToString(b[:])
}

func compactJSON(b []byte) ([]byte, error) {
	var out bytes.Buffer
	if err := json.Compact(&out, b); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// anotherAmount is body, a JSON object with a number "amount", with
// another amount: one more.
func anotherAmount(body []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var obj map[string]any
	if err := dec.Decode(&obj); err != nil {
		return nil, errors.New("is not a JSON object")
	}
	n, ok := obj["amount"].(json.Number)
	if !ok {
		return nil, errors.New(`has no number "amount" to change`)
	}
	if i, err := n.Int64(); err == nil {
		obj["amount"] = i + 1
	} else if x, err := n.Float64(); err == nil {
		obj["amount"] = x + 1
	}
	return json.Marshal(obj)
}

// sameJSON reports whether two JSON texts hold the same value, whatever
// the order of their members and their spacing.
func sameJSON(a, b []byte) bool {
	decode := func(b []byte) any {
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.UseNumber()
		var v any
		dec.Decode(&v)
		return v
	}
	return reflect.DeepEqual(decode(a), decode(b))
}

// ttlMargin is how far from the TTL's end the expiry check sends its
// retries: a tenth of the TTL, which at the least TTL (MinTTL, 1 s) is
// 100 ms, more than a request's latency to a nearby server; at most 30
// s, since a longer margin only lengthens the wait.
func ttlMargin(ttl time.Duration) time.Duration {
	return min(ttl/10, 30*time.Second)
}
