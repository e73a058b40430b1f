package explore

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"

	"github.com/retrylab/retrylab/engine/sim"
)

// Hash is a 64-bit FNV-1a hash of everything a trace says: each event's
// time, kind, lanes, reference, fields and sentence. Two runs with the
// same hash told the reader the same story, event for event.
func Hash(t sim.Trace) uint64 {
	h := fnv.New64a()
	var n [8]byte
	num := func(x int64) {
		binary.LittleEndian.PutUint64(n[:], uint64(x))
		h.Write(n[:])
	}
	str := func(s string) {
		num(int64(len(s)))
		h.Write([]byte(s))
	}
	for _, e := range t {
		num(int64(e.At))
		str(e.Kind.String())
		str(e.Lane)
		str(e.To)
		str(e.Ref)
		num(int64(e.N))
		num(int64(e.M))
		num(e.Amount)
		str(e.Detail)
		if e.OK {
			num(1)
		} else {
			num(0)
		}
		str(e.Sentence())
	}
	return h.Sum64()
}

func errorf(format string, args ...any) error {
	if len(args) == 0 {
		return errors.New(format)
	}
	return fmt.Errorf(format, args...)
}
