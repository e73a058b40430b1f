package budget

import (
	"math"
	"strconv"
)

// Bucket is a retry budget's token bucket: every request earns Ratio of a
// token, capped at the bank; a retry spends one token and may not empty the
// bucket, so it is allowed only while the bucket holds more than one.
//
// Why a retry may not take the last token: under that rule the retry-storm
// simulator (the metastable failure article), which uses this bucket,
// recovers 20 s after its trigger, the figure the handbook gives; letting a
// retry take the last token gives 21 s there. Both rules give the retry
// budget article's 1,109 calls. (A bucket kept in floating point also gives
// 20 s, but only by rounding: 80 additions of 0.1 come to 7.999999999999988
// tokens, one retry short of 8.)
//
// The bucket counts in millionths of a token, so its arithmetic is exact:
// ten requests at 0.1 earn exactly one token.
type Bucket struct {
	tokens, bank, earn int64 // in micro-tokens
}

const micro = 1_000_000 // micro-tokens in a token

// NewBucket returns a full bucket of bank tokens whose requests earn ratio
// of a token each. Both are rounded to the millionth.
func NewBucket(ratio, bank float64) *Bucket {
	b := &Bucket{bank: int64(math.Round(bank * micro)), earn: int64(math.Round(ratio * micro))}
	b.tokens = b.bank
	return b
}

// Earn credits n requests' share, capped at the bank.
func (b *Bucket) Earn(n int) {
	b.tokens = min(b.bank, b.tokens+int64(n)*b.earn)
}

// Spend lets up to n retries through, one token each, as long as each
// leaves something in the bucket, and reports how many it let through.
func (b *Bucket) Spend(n int) int {
	if n <= 0 || b.tokens <= micro {
		return 0
	}
	k := int64(min(n, math.MaxInt32))
	// The largest k with tokens - k*micro > 0.
	k = min(k, (b.tokens-1)/micro)
	b.tokens -= k * micro
	return int(k)
}

// Tokens is what the bucket holds.
func (b *Bucket) Tokens() float64 { return float64(b.tokens) / micro }

// String writes the tokens rounded down to a tenth, "0.9 tokens", so that
// 0.96 never reads as a whole token.
func (b *Bucket) String() string { return tokensText(b.tokens) }

// tokensText writes millionths of a token as Bucket.String does.
func tokensText(micros int64) string {
	tenths := micros / (micro / 10)
	return strconv.FormatInt(tenths/10, 10) + "." + strconv.FormatInt(tenths%10, 10) + " tokens"
}
