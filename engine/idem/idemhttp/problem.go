package idemhttp

import (
	"net/http"
	"sort"
	"strconv"

	"github.com/retrylab/retrylab/engine/idem"
	"github.com/retrylab/retrylab/engine/idem/ledger"
)

// A problem is a kind of error answer: RFC 9457 problem details, served
// as application/problem+json. Its type, "/v1/problems/CODE", is a URI
// reference the server itself answers with the problem's description.
type problem struct {
	code   string
	status int
	title  string
	about  string // the description GET /v1/problems/CODE gives
}

var (
	probUnauthorized = problem{"unauthorized", http.StatusUnauthorized, "No bearer token",
		"Send one Authorization: Bearer TOKEN header. Any token of one word works: it names a sandbox account of its own, and keys are scoped to it."}
	probMissingKey = problem{"missing-idempotency-key", http.StatusBadRequest, "Missing Idempotency-Key",
		"POST /v1/payments needs an Idempotency-Key header: a value unique to this payment intent, sent again unchanged on every retry of it."}
	probInvalidKey = problem{"invalid-idempotency-key", http.StatusBadRequest, "Invalid Idempotency-Key",
		"An Idempotency-Key is 1 to 255 printable ASCII characters, sent once, bare or as a quoted structured-field string. A value that begins with a double quote is read as a quoted string, so a bare key cannot begin with one."}
	probUnsupportedType = problem{"unsupported-media-type", http.StatusUnsupportedMediaType, "Unsupported Content-Type",
		"POST /v1/payments takes a JSON body: send Content-Type: application/json (or no Content-Type)."}
	probUnsupportedEncoding = problem{"unsupported-content-encoding", http.StatusUnsupportedMediaType, "Unsupported Content-Encoding",
		"POST /v1/payments reads its body as sent: send it with no Content-Encoding (gzip and the others are not undone). Accept-Encoding in the answer says so."}
	probRequestTimeout = problem{"request-timeout", http.StatusRequestTimeout, "Request timeout",
		"The request did not arrive whole in time: the body stopped short of its Content-Length. Nothing was charged."}
	probStoreBusy = problem{"store-busy", http.StatusServiceUnavailable, "Key store busy",
		"The key store could not run a statement in time (another writer held it), so it did nothing. Nothing was saved: retry with the same key after Retry-After."}
	probMalformed = problem{"malformed-request", http.StatusBadRequest, "Malformed HTTP request",
		"The server could not read the request as HTTP/1.1 (its method, a header field or the framing of its body), so it closed the connection having done nothing."}
	probHeadTooLarge = problem{"headers-too-large", http.StatusRequestHeaderFieldsTooLarge, "Request header fields too large",
		"A request's line and header fields may take at most " + strconv.Itoa(MaxHeaderBytes) + " bytes. Nothing was done."}
	probTransferCoding = problem{"unsupported-transfer-encoding", http.StatusNotImplemented, "Unsupported Transfer-Encoding",
		"The server undoes one transfer coding, chunked, alone. Nothing was done."}
	probHTTPVersion = problem{"http-version-not-supported", http.StatusHTTPVersionNotSupported, "HTTP version not supported",
		"The server speaks HTTP/1.0 and HTTP/1.1. Nothing was done."}
	probStoreFull = problem{"store-full", http.StatusServiceUnavailable, "Key store full",
		"The server keeps a bounded number of keys, and every one it holds is a request still in flight, which it may not forget. Nothing was charged and nothing saved: retry with the same key later."}
	probTooManyKeys = problem{"too-many-keys", http.StatusTooManyRequests, "Too many keys in this account",
		"One account may hold a bounded number of live keys (a key lives until its TTL after its request finished). Nothing was charged and nothing saved: retry with the same key after Retry-After, when the account's first key is forgotten."}
	probTooManySlow = problem{"too-many-slow", http.StatusTooManyRequests, "Too many slow requests at once",
		"Retrylab-Fault: slow=MS holds a connection while the work waits. The server serves " + strconv.Itoa(MaxSlowAtOnce) + " such requests at once. Nothing was done: retry after Retry-After."}
	probTooManyCrashes = problem{"too-many-crashes", http.StatusTooManyRequests, "Too many crashes waiting out their leases",
		"Retrylab-Fault: crash-after-charge leaves its claim in flight until its lease ends. An account may have " + strconv.Itoa(MaxCrashesPerAccount) + " such claims at once, and the server " + strconv.Itoa(MaxCrashes) + ". Nothing was done: retry after Retry-After, when the first lease ends."}
	probInvalidFault = problem{"invalid-fault", http.StatusBadRequest, "Invalid Retrylab-Fault",
		"Retrylab-Fault lists faults to inject: " + FaultNames + "."}
	probTooLarge = problem{"body-too-large", http.StatusRequestEntityTooLarge, "Request body too large",
		"A request body may be at most 65536 bytes; a larger one is refused without being read."}
	probInvalidRequest = problem{"invalid-request", http.StatusBadRequest, "Invalid payment request",
		`The body must be a JSON object with "amount" (a whole number of cents, 1 to ` + strconv.Itoa(ledger.MaxAmount) + `) and "currency" (three letters).`}
	probKeyReused = problem{"idempotency-key-reused", http.StatusUnprocessableEntity, "Idempotency-Key reused with another body",
		"This key was first used with a different request body. A key stands for one request: send a new key for a new payment."}
	probKeyInUse = problem{"idempotency-key-in-use", http.StatusConflict, "Request with this Idempotency-Key in progress",
		"The first request with this key has not finished. Retry after the seconds in Retry-After: you will get its answer."}
	probDeclined = problem{"card-declined", http.StatusPaymentRequired, "Card declined",
		"The card network declined the charge. The answer is saved: a retry with the same key gets it again."}
	probUnavailable = problem{"card-network-unavailable", http.StatusServiceUnavailable, "Card network unavailable",
		"The card network could not be reached and nothing was charged. Nothing was saved either: retry with the same key."}
	probInternal = problem{"internal", http.StatusInternalServerError, "Internal error",
		"The server failed. If the work had begun, the failure is saved and a retry with the same key gets it again; if not, the retry runs afresh."}
	probNotFound = problem{"not-found", http.StatusNotFound, "Not found",
		"Nothing here for this account. The API has POST /v1/payments, GET /v1/payments/{id} and GET /v1/charges."}
	probMethod = problem{"method-not-allowed", http.StatusMethodNotAllowed, "Method not allowed",
		"The Allow header lists the methods this path takes."}
	probRequestLost = problem{"request-lost", http.StatusGatewayTimeout, "Request lost (Retrylab-Fault)",
		"With Retrylab-Fault: lose-request the request never reached the payments code: nothing happened. Where the connection can be dropped it is; elsewhere this 504 stands for the silence."}
	probResponseLost = problem{"response-lost", http.StatusGatewayTimeout, "Response lost (Retrylab-Fault)",
		"With Retrylab-Fault: lose-response the request was handled and then its answer lost. Where the connection can be dropped it is; elsewhere this 504 stands for the silence. Did it charge? Only a retry with the same key tells safely."}
	probCrashed = problem{"server-crashed", http.StatusBadGateway, "Server crashed (Retrylab-Fault)",
		"With Retrylab-Fault: crash-after-charge the server died after charging the card, before answering. Its claim on the key stays until its lease runs out; then a retry takes over and finishes the payment without charging again."}
)

// problems are the problem types by code, for GET /v1/problems/CODE.
var problems = func() map[string]problem {
	m := map[string]problem{}
	for _, p := range []problem{probUnauthorized, probMissingKey, probInvalidKey, probInvalidFault, probTooLarge,
		probInvalidRequest, probKeyReused, probKeyInUse, probDeclined, probUnavailable, probInternal, probNotFound,
		probMethod, probRequestLost, probResponseLost, probCrashed, probUnsupportedType, probStoreFull,
		probUnsupportedEncoding, probRequestTimeout, probStoreBusy, probMalformed, probHeadTooLarge, probTransferCoding,
		probHTTPVersion, probTooManyKeys, probTooManyCrashes, probTooManySlow} {
		m[p.code] = p
	}
	return m
}()

// ProtocolProblem is the application/problem+json body of an answer a
// server makes before any handler sees the request, because it could not
// read it: 400, 431, 501 or 505, with the server's own words for what
// was wrong (cut short), so that these read as every answer of the API
// does. ok is false for another status.
func ProtocolProblem(status int, detail string) (body []byte, ok bool) {
	for _, p := range []problem{probMalformed, probHeadTooLarge, probTransferCoding, probHTTPVersion} {
		if p.status == status {
			if detail == "" {
				detail = p.about
			} else if len(detail) > 80 {
				detail = idem.Excerpt(detail)
			}
			return p.body(detail), true
		}
	}
	return nil, false
}

// problemCodes lists the codes in order, for the index.
func problemCodes() []string {
	var codes []string
	for c := range problems {
		codes = append(codes, c)
	}
	sort.Strings(codes)
	return codes
}

// problemDoc is the JSON of a problem answer. Payment is set for a
// declined card, so that the saved answer names the payment.
type problemDoc struct {
	Type    string `json:"type"`
	Title   string `json:"title"`
	Status  int    `json:"status"`
	Detail  string `json:"detail,omitempty"`
	Payment string `json:"payment,omitempty"`
}

func (p problem) typeURI() string { return "/v1/problems/" + p.code }

// body is the problem's JSON with detail.
func (p problem) body(detail string) []byte {
	return jsonBody(problemDoc{Type: p.typeURI(), Title: p.title, Status: p.status, Detail: detail})
}

// answer is an answer of this problem, with detail.
func (p problem) answer(detail string) answer {
	return answer{status: p.status, body: p.body(detail), outcome: p.code}
}
