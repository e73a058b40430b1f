package widget

// A Clock runs a function after a delay, and can cancel it: the page's
// is setTimeout; a test's is a virtual one it advances by hand.
type Clock interface {
	// After runs fn once, ms milliseconds from now, unless the returned
	// cancel is called first. Calling cancel after fn ran does nothing.
	After(ms int, fn func()) (cancel func())
}

// StepDelay is the pause between two steps of a replay, in milliseconds: a
// row of the sequence diagram is about eight words, which a reader takes in
// at a glance with the row highlighted; the step buttons are there to read
// at leisure.
const StepDelay = 700

// A Replay steps through a run's trace: play, pause, step, scrub. It knows
// nothing of the page: it calls Show with every step to draw and Stopped
// when a replay stops, and takes its time from a Clock.
type Replay struct {
	Clock   Clock
	Delay   int             // milliseconds between two steps; StepDelay if 0
	Show    func(step int)  // draw step (0 to Steps)
	Stopped func(done bool) // a replay stopped: paused (false) or at the end (true)
	steps   int             //
	step    int             //
	playing bool            //
	cancel  func()          // the pending step, nil if none
}

// Load sets the number of steps and the step shown, and stops any replay.
func (r *Replay) Load(steps, step int) {
	r.halt()
	r.steps = steps
	r.step = max(0, min(step, steps))
}

// Step is the step shown; Steps how many there are; Playing whether a
// replay runs.
func (r *Replay) Step() int     { return r.step }
func (r *Replay) Steps() int    { return r.steps }
func (r *Replay) Playing() bool { return r.playing }

// Toggle plays or pauses. Playing from the last step starts over.
func (r *Replay) Toggle() {
	if r.playing {
		r.halt()
		r.stopped(false)
		return
	}
	r.Play()
}

// Play starts a replay from the step shown, or from the first step when
// the last one is shown. A run without steps has nothing to replay.
func (r *Replay) Play() {
	if r.steps == 0 || r.playing {
		return
	}
	if r.step >= r.steps {
		r.show(0)
	}
	r.playing = true
	r.schedule()
}

// Stop stops a replay where it is, without a call to Stopped: for a
// caller about to draw something else.
func (r *Replay) Stop() { r.halt() }

// StepBy moves d steps from the one shown, stopping any replay.
func (r *Replay) StepBy(d int) { r.GoTo(r.step + d) }

// GoTo stops any replay and shows step, kept within the run.
func (r *Replay) GoTo(step int) {
	r.halt()
	r.show(step)
}

func (r *Replay) schedule() {
	delay := r.Delay
	if delay == 0 {
		delay = StepDelay
	}
	r.cancel = r.Clock.After(delay, func() {
		r.cancel = nil
		if !r.playing {
			return
		}
		r.show(r.step + 1)
		if r.step < r.steps {
			r.schedule()
			return
		}
		r.playing = false
		r.stopped(true)
	})
}

// halt stops a replay without telling anyone: the caller does.
func (r *Replay) halt() {
	if r.cancel != nil {
		r.cancel()
		r.cancel = nil
	}
	r.playing = false
}

func (r *Replay) show(step int) {
	r.step = max(0, min(step, r.steps))
	if r.Show != nil {
		r.Show(r.step)
	}
}

func (r *Replay) stopped(done bool) {
	if r.Stopped != nil {
		r.Stopped(done)
	}
}
