package widget

// Latest orders a widget's requests whose answers come back later, from
// another thread (the page's simulator worker): a reader who changes a
// control three times while a long run computes must see the third
// state, never the first one arriving last. Each request gets the next
// sequence number. One is sent at a time; while it is out, only the
// newest request waits, replacing any other waiting (the states between
// are never drawn, so never computed). An answer counts only if it
// answers the newest request: every other is dropped. It knows nothing
// of the page: Send hands a request on.
type Latest[T any] struct {
	Send func(seq int, req T)

	newest  int // the newest request's number; 0 before any
	out     int // the number of the request sent and not yet answered; 0 if none
	waiting *T  // the newest request, when it waits for out's answer
	asked   T   // the request out answers
}

// Ask sends req, or keeps it until the request out is answered, and
// returns its number.
func (l *Latest[T]) Ask(req T) int {
	l.newest++
	if l.out != 0 {
		l.waiting = &req
		return l.newest
	}
	l.send(req)
	return l.newest
}

func (l *Latest[T]) send(req T) {
	l.out, l.asked, l.waiting = l.newest, req, nil
	l.Send(l.out, req)
}

// Answered takes the answer to request seq. It returns that request and
// true when it is the newest, the state to show; else false, and sends
// the request waiting, if any.
func (l *Latest[T]) Answered(seq int) (T, bool) {
	var none T
	if seq == 0 || seq != l.out {
		return none, false // not the request out: a duplicate, or from before a Drop
	}
	req := l.asked
	l.out, l.asked = 0, none
	if l.waiting != nil {
		l.send(*l.waiting)
		return none, false
	}
	if seq != l.newest {
		return none, false // dropped while it was out
	}
	return req, true
}

// Drop forgets every request: the answer to the one out will be dropped,
// and the one waiting is never sent. For a form whose values cannot run.
func (l *Latest[T]) Drop() {
	l.newest++
	l.waiting = nil
}

// Waiting reports whether an answer to show is still to come: a request
// is out, or waits, that Drop has not forgotten.
func (l *Latest[T]) Waiting() bool {
	return l.waiting != nil || (l.out != 0 && l.out == l.newest)
}

// Resend sends the request out again, under the same number: for a
// request whose answer can no longer come (the worker computing it
// failed), now handed to Send's replacement. It reports whether there
// was one.
func (l *Latest[T]) Resend() bool {
	if l.out == 0 {
		return false
	}
	l.Send(l.out, l.asked)
	return true
}
