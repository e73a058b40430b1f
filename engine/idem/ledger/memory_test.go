package ledger_test

import (
	"testing"

	"github.com/retrylab/retrylab/engine/idem/ledger"
	"github.com/retrylab/retrylab/engine/idem/storetest"
)

func TestMemoryStoreConformance(t *testing.T) {
	storetest.Run(t, func(*testing.T) ledger.Store { return ledger.NewMemoryStore() })
}

func TestMemoryStoreProperty(t *testing.T) {
	storetest.RunProperty(t, func(*testing.T) ledger.Store { return ledger.NewMemoryStore() }, 2000)
}
