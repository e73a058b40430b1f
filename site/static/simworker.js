// retrylab's simulator worker: the page's WebAssembly module run a second
// time, in a Web Worker, to compute the widgets' runs off the page's main
// thread (wasm/worker.go). The loader starts it and posts first the module
// it has compiled, the URL of wasm_exec.js and the module's environment;
// every later message asks for one widget's output and is answered with
// its HTML.
(() => {
  "use strict";
  // The names this script shares with the module, written in by the build
  // from site/widget/names.go.
  const names = /*names*/{};
  let waiting = []; // requests that came before the module could answer
  let serve = null; // the module's answer to one request (names.global.serve)

  self.onmessage = function (ev) {
    const m = ev.data;
    if (m && m.module) {
      boot(m);
    } else if (serve) {
      answer(m);
    } else {
      waiting.push(m);
    }
  };

  // The module calls names.global.serve once, when it is ready to answer.
  self[names.global.serve] = function (fn) {
    serve = fn;
    // The requests that waited, each in a task of its own, after the
    // module's call has returned.
    setTimeout(() => {
      const q = waiting;
      waiting = [];
      q.forEach(answer);
    }, 0);
  };

  function answer(req) {
    let a;
    try {
      a = serve(req);
    } catch (err) {
      failed(err);
      return;
    }
    self.postMessage(a);
  }

  function boot(m) {
    try {
      importScripts(m.exec);
      const go = new Go();
      go.env = m.env;
      WebAssembly.instantiate(m.module, go.importObject).then((instance) => {
        go.run(instance).catch(failed);
      }, failed);
    } catch (err) {
      failed(err);
    }
  }

  // failed tells the page, which then computes the runs itself.
  function failed(err) {
    self.postMessage({ failed: String(err) });
  }
})();
