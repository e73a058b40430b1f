//go:build wasm

package idem

// sum256 is SHA-256: in WebAssembly, the package's own (portableSum256).
func sum256(data []byte) [32]byte { return portableSum256(data) }
