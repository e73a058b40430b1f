package payment

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/retrylab/retrylab/engine/idem"
	"github.com/retrylab/retrylab/engine/idem/ledger"
	"github.com/retrylab/retrylab/engine/sim"
)

// Charge is one line of the server's ledger: money taken from the card.
type Charge struct {
	ID      string        // ch_1, ch_2, ... in order
	Amount  int64         // cents
	Key     string        // the request's Idempotency-Key, "" without
	Attempt int           // the client attempt that caused it
	At      time.Duration // virtual time of the charge
}

// Request is one POST /payments as the server receives it.
type Request struct {
	Account string // whose money; keys are scoped to it
	Key     string // the Idempotency-Key header, "" when the client sends none
	Body    []byte // JSON with a whole "amount" in cents, e.g. {"amount":2500,"currency":"usd"}
	// Attempt is the client's attempt number. The server only copies it
	// into the ledger, so that the ledger can say which attempt charged.
	Attempt int
}

// Reply is the server's answer.
type Reply struct {
	Status   int
	Body     []byte
	Replayed bool   // the saved answer to an earlier request with the same key
	ChargeID string // the "id" in Body, "" if there is none
}

// Server is the payment server: without a key it charges every request it
// receives; with one it goes through the idempotency-key protocol
// (engine/idem, a memory store on the simulation's clock). It records what
// it does in the simulation's trace, in lane "server".
type Server struct {
	sim    *sim.Sim
	keeper idem.Keeper // made at the first request with a key: a run without keys needs no store
	ledger []Charge
	made   string // the charge the request being handled made, if any
}

// epoch is the wall-clock time virtual time 0 stands for in the key store.
var epoch = time.Unix(0, 0).UTC()

// NewServer returns a server with an empty ledger and key store, on s's
// clock and trace.
func NewServer(s *sim.Sim) *Server {
	return &Server{sim: s}
}

// keyed is the keeper, made on first use.
func (srv *Server) keyed() *idem.Keeper {
	if srv.keeper.Store == nil {
		s := srv.sim
		srv.keeper = idem.Keeper{
			Store: idem.NewMemoryStore(),
			Clock: idem.ClockFunc(func() time.Time { return epoch.Add(s.Now()) }),
		}
	}
	return &srv.keeper
}

// Charges returns a copy of the ledger, in order.
func (srv *Server) Charges() []Charge { return append([]Charge(nil), srv.ledger...) }

// HTTP statuses the server answers with (net/http is not imported into
// engine code).
const (
	statusCreated    = 201
	statusBadRequest = 400
	statusConflict   = 409
	statusMismatch   = 422
	statusInternal   = 500
)

// Pay handles one request at the current virtual time. It records "charge",
// "replay" or "reject" as they happen, then "response" (to the client).
func (srv *Server) Pay(r Request) Reply {
	srv.made = ""
	rep := srv.answer(r)
	switch {
	case rep.Replayed:
		// Set by recordOutcome.
	case srv.made != "" && rep.Status == statusCreated:
		rep.ChargeID = srv.made // the body is the one charge just wrote
	default:
		rep.ChargeID = chargeID(rep.Body)
	}
	srv.sim.Record(sim.Event{Kind: EvResponse, Lane: "server", To: "client", N: rep.Status, Ref: rep.ChargeID, OK: rep.Replayed})
	return rep
}

// answer reads the request as the sandbox API does, its key first, then
// the payment (ledger.ParsePayment, once), and answers it: without a key
// by charging; with one through the idempotency-key protocol, whose
// fingerprint is that of the payment in canonical form.
func (srv *Server) answer(r Request) Reply {
	if r.Key != "" {
		if err := idem.CheckKey(r.Key); err != nil {
			return srv.refuse(r, err)
		}
	}
	req, err := ledger.ParsePayment(r.Body)
	if err != nil {
		srv.rejectBadRequest(err)
		return Reply{Status: statusBadRequest, Body: errorBody(err.Error())}
	}
	if r.Key == "" {
		return Reply{Status: statusCreated, Body: srv.charge(r, req)}
	}
	resp, err := srv.keyed().DoCanonical(context.Background(), r.Account, r.Key, req.Canonical(),
		func(context.Context, *idem.Claim) (int, []byte, error) { return statusCreated, srv.charge(r, req), nil })
	if err != nil {
		return srv.refuse(r, err)
	}
	rep := Reply{Status: resp.Status, Body: resp.Body, Replayed: resp.Outcome == idem.Replayed}
	rep.ChargeID = srv.recordOutcome(r, resp)
	return rep
}

// recordOutcome records what the keeper did with a keyed request other
// than run it: a replay, or a refusal (422, 409). For a replay it returns
// the charge in the saved answer.
func (srv *Server) recordOutcome(r Request, resp idem.Response) (replayed string) {
	switch resp.Outcome {
	case idem.Replayed:
		replayed = chargeID(resp.Body)
		srv.sim.Record(sim.Event{Kind: EvReplay, Lane: "server", Ref: replayed, Detail: r.Key})
	case idem.Mismatch:
		srv.sim.Record(sim.Event{Kind: EvReject, Lane: "server", Ref: r.Key, N: statusMismatch})
	case idem.InProgress:
		srv.sim.Record(sim.Event{Kind: EvReject, Lane: "server", Ref: r.Key, N: statusConflict, M: resp.RetryAfter})
	}
	return replayed
}

// charge is the server's work for a payment read and checked: take the
// money, and return the body of its 201.
func (srv *Server) charge(r Request, req ledger.PaymentRequest) []byte {
	amount := req.Amount
	id := chargeName(len(srv.ledger) + 1)
	srv.ledger = append(srv.ledger, Charge{ID: id, Amount: amount, Key: r.Key, Attempt: r.Attempt, At: srv.sim.Now()})
	srv.made = id
	srv.sim.Record(sim.Event{Kind: EvCharge, Lane: "server", Ref: id, Amount: amount})
	body := make([]byte, 0, len(`{"amount":,"id":"","status":"succeeded"}`)+20+len(id))
	body = strconv.AppendInt(append(body, `{"amount":`...), amount, 10)
	body = append(append(append(body, `,"id":"`...), id...), `","status":"succeeded"}`...)
	return body
}

// chargeIDs are the ids of the first charges, ch_1 to ch_10 (a run of
// the model charges at most once an attempt), made once rather than on
// every charge.
var chargeIDs = sim.Names("ch_", MaxAttempts)

// chargeName is the id of the ledger's nth charge: ch_1, ch_2, ...
func chargeName(n int) string {
	if n <= len(chargeIDs) {
		return chargeIDs[n-1]
	}
	return "ch_" + strconv.Itoa(n)
}

// refuse answers a keyed request the protocol could not take: a bad key
// is the client's fault (400), anything else the server's (500).
func (srv *Server) refuse(r Request, err error) Reply {
	if errors.Is(err, idem.ErrMissingKey) || errors.Is(err, idem.ErrKeyTooLong) || errors.Is(err, idem.ErrKeyNotPrintable) {
		srv.rejectBadRequest(err)
		return Reply{Status: statusBadRequest, Body: errorBody(err.Error())}
	}
	srv.sim.Record(sim.Event{Kind: EvReject, Lane: "server", Ref: r.Key, N: statusInternal})
	return Reply{Status: statusInternal, Body: errorBody(err.Error())}
}

func (srv *Server) rejectBadRequest(err error) {
	srv.sim.Record(sim.Event{Kind: EvReject, Lane: "server", N: statusBadRequest, Detail: err.Error()})
}

// statusLine is the status code and its reason phrase.
func statusLine(status int) string {
	s := strconv.Itoa(status)
	switch status {
	case statusCreated:
		return s + " Created"
	case statusBadRequest:
		return s + " Bad Request"
	case statusConflict:
		return s + " Conflict"
	case statusMismatch:
		return s + " Unprocessable Content"
	case statusInternal:
		return s + " Internal Server Error"
	}
	return s
}
