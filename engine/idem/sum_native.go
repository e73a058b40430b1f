//go:build !wasm

package idem

import "crypto/sha256"

// sum256 is SHA-256: natively, crypto/sha256's, with the processor's SHA
// instructions where it has them (the sandbox API fingerprints every
// request body it keeps).
func sum256(data []byte) [32]byte { return sha256.Sum256(data) }
