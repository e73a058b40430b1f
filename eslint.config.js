// ESLint's configuration for the site's JavaScript: make lint runs it,
// at the version build/lint/package.json pins. Every script is a classic
// script of the browser in one style: an arrow function run at once,
// strict, with const and let.
"use strict";

const js = require("./build/lint/node_modules/@eslint/js");
const globals = require("./build/lint/node_modules/globals");

const style = {
  "no-var": "error",
  "prefer-const": "error",
  "prefer-arrow-callback": "error",
  "object-shorthand": "error",
  eqeqeq: "error",
  strict: ["error", "function"],
  quotes: ["error", "double", { avoidEscape: true }],
  semi: ["error", "always"],
  "no-unused-vars": ["error", { caughtErrors: "none" }],
};

module.exports = [
  { ignores: ["**/node_modules/", "public/", "public.*/", "bench/", "build/worker/"] },
  js.configs.recommended,
  {
    files: ["site/static/*.js", "site/root/*.js", "cmd/sitegen/live/*.js"],
    languageOptions: { ecmaVersion: 2022, sourceType: "script", globals: globals.browser },
    rules: style,
  },
  {
    // The loader starts the Go module, whose wasm_exec.js defines Go.
    files: ["site/static/loader.js", "site/static/playground.js"],
    languageOptions: { globals: { Go: "readonly" } },
  },
  {
    files: ["site/static/simworker.js"],
    languageOptions: { globals: { ...globals.worker, Go: "readonly" } },
  },
  {
    files: ["eslint.config.js"],
    languageOptions: { sourceType: "commonjs", globals: globals.node },
  },
];
