package payment

import (
	"errors"
	"strconv"

	"github.com/retrylab/retrylab/engine/ijson"
)

// amountOf reads the whole positive number of cents in the body's top-level
// "amount".
func amountOf(body []byte) (int64, error) {
	v, err := ijson.Parse(string(body))
	if err != nil {
		return 0, err
	}
	amount, ok := v.Get("amount")
	if !ok {
		return 0, errors.New("no amount")
	}
	n, err := strconv.ParseInt(amount.Text(), 10, 64)
	if amount.Kind() != ijson.Number || err != nil || n < 1 {
		return 0, errors.New("amount " + string(amount.Append(nil)) + " is not a positive whole number of cents")
	}
	return n, nil
}

// chargeID reads the top-level string "id" of a response body, "" if none.
func chargeID(body []byte) string {
	v, err := ijson.Parse(string(body))
	if err != nil {
		return ""
	}
	id, ok := v.Get("id")
	if !ok || id.Kind() != ijson.String {
		return ""
	}
	return id.Text()
}

// errorBody is the JSON of a refusal.
func errorBody(detail string) []byte {
	b := ijson.AppendString([]byte(`{"error":"invalid-request","detail":`), detail)
	return append(b, '}')
}
