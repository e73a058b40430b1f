//go:build js && wasm

package main

import (
	"syscall/js"

	"github.com/retrylab/retrylab/site/widget"
)

// The widgets' runs are made off the page's main thread. The loader starts
// this same module a second time in a Web Worker (site/static/simworker.js),
// posting it the module it has already compiled; there, with no document,
// main serves runs instead of hydrating: each message names a widget, its
// parameters and the step to draw, and is answered with the output's HTML,
// which the page puts in place with one call (instance.draw). Backoff with
// 100,000 clients and a comparison takes a second or so of the worker's
// thread and none of the page's, which goes on answering the reader and
// says "running…" meanwhile.

// end asks for a run's end state, whatever its number of steps.
const end = -1

// A request asks for a widget's output region at one step of a run.
type request struct {
	seq    int    // the asker's number (widget.Latest), sent back with the answer
	id     string // the widget's id in the page, which the answer is for
	widget string // its name in the registry
	params string // its values, as data-params
	step   int    // the step to draw (0 to the run's steps), or end
}

// An answer is a request's output, or the model's refusal of the values.
type answer struct {
	seq   int
	id    string
	html  string // the output region's inner HTML
	steps int    // the run's steps
	step  int    // the step drawn
	err   string // Widget.Run's error: values the model does not take
}

// outputs computes requests, keeping each widget's last run, by the
// widget's id, so that its replay's steps are drawn without running the
// model again.
type outputs map[string]kept

type kept struct {
	params string
	run    widget.Run
}

func (o outputs) answer(r request) answer {
	a := answer{seq: r.seq, id: r.id}
	k, ok := o[r.id]
	if !ok || k.params != r.params {
		delete(o, r.id)
		w, err := widget.Find(r.widget)
		if err != nil {
			a.err = err.Error()
			return a
		}
		v, err := w.Schema.ParseJSON(r.params)
		if err != nil {
			a.err = err.Error()
			return a
		}
		run, err := w.Run(v)
		if err != nil {
			a.err = err.Error()
			return a
		}
		k = kept{params: r.params, run: run}
		o[r.id] = k
	}
	a.steps = k.run.Steps()
	a.step = r.step
	if a.step == end || a.step > a.steps {
		a.step = a.steps
	}
	a.step = max(0, a.step)
	var h widget.HTML
	k.run.Output(&h, a.step)
	a.html = h.String()
	return a
}

// serveRuns is main in the worker: it hands simworker.js the function that
// answers one request, and keeps the module alive to answer them.
func serveRuns() {
	o := outputs{}
	js.Global().Call(widget.GlobalServe, js.FuncOf(func(_ js.Value, args []js.Value) any {
		a := o.answer(readRequest(args[0]))
		collectLater() // while the page draws the answer
		return a.js()
	}))
	select {}
}

func (r request) js() map[string]any {
	return map[string]any{"seq": r.seq, "id": r.id, "widget": r.widget, "params": r.params, "step": r.step}
}

func readRequest(v js.Value) request {
	return request{seq: v.Get("seq").Int(), id: v.Get("id").String(), widget: v.Get("widget").String(),
		params: v.Get("params").String(), step: v.Get("step").Int()}
}

func (a answer) js() map[string]any {
	return map[string]any{"seq": a.seq, "id": a.id, "html": a.html, "steps": a.steps, "step": a.step, "error": a.err}
}

func readAnswer(v js.Value) answer {
	return answer{seq: v.Get("seq").Int(), id: v.Get("id").String(), html: v.Get("html").String(),
		steps: v.Get("steps").Int(), step: v.Get("step").Int(), err: v.Get("error").String()}
}

// runner sends the page's requests to the worker and each answer to its
// widget. Without a worker (a browser without them, or one that could not
// start) the module computes them itself, at once, as it did before there
// was one.
type runner struct {
	worker  js.Value             // the worker, or undefined
	widgets map[string]*instance // by id: where answers go
	here    outputs              // the runs computed here, without a worker
}

// newRunner answers through the worker the loader started
// (window[widget.GlobalWorker]), if any.
func newRunner() *runner {
	r := &runner{worker: js.Global().Get(widget.GlobalWorker), widgets: map[string]*instance{}, here: outputs{}}
	if r.worker.Truthy() {
		listen(r.worker, "message", func(ev js.Value) {
			data := ev.Get("data")
			if f := data.Get("failed"); f.Truthy() {
				r.failed(f.String())
				return
			}
			if in := r.widgets[data.Get("id").String()]; in != nil {
				in.answered(readAnswer(data))
			}
		})
		listen(r.worker, "error", func(ev js.Value) {
			ev.Call("preventDefault")
			why := "it did not start"
			if m := ev.Get("message"); m.Type() == js.TypeString {
				why = m.String()
			}
			r.failed(why)
		})
	}
	return r
}

func (r *runner) add(in *instance) { r.widgets[in.root.ID()] = in }

// send computes req for in, in the worker or here.
func (r *runner) send(in *instance, req request) {
	if r.worker.Truthy() {
		r.worker.Call("postMessage", req.js())
		return
	}
	in.answered(r.here.answer(req))
}

// failed gives up the worker: the module computes every run itself from
// now on, the runs the worker had not answered first.
func (r *runner) failed(why string) {
	if !r.worker.Truthy() {
		return
	}
	js.Global().Get("console").Call("warn", "retrylab: the simulator worker failed ("+why+"): the page computes the runs itself")
	r.worker.Call("terminate")
	r.worker = js.Undefined()
	for _, in := range r.widgets {
		in.asks.Resend()
	}
}
