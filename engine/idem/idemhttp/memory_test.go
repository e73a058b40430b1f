package idemhttp_test

import (
	"testing"

	"github.com/retrylab/retrylab/engine/idem/idemhttp"
	"github.com/retrylab/retrylab/engine/idem/storetest"
)

func TestMemoryStoreConformance(t *testing.T) {
	storetest.Run(t, func(*testing.T) idemhttp.Store { return idemhttp.NewMemoryStore() })
}

func TestMemoryStoreProperty(t *testing.T) {
	storetest.RunProperty(t, func(*testing.T) idemhttp.Store { return idemhttp.NewMemoryStore() }, 2000)
}
