package payment

import "github.com/retrylab/retrylab/engine/ijson"

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
