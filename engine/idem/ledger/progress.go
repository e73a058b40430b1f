package ledger

import "strings"

// Progress is where a payment's work got to: its recovery point, kept in
// the key store as text (the claim's recovery point) so that a takeover
// resumes after the last step finished. Both payment servers that resume,
// the sandbox API's (idemhttp) and the leases simulator's (engine/lease),
// write and read it:
//
//	""                   nothing done yet
//	"payment PAY"        the payment's id is chosen; nothing charged yet,
//	                     unless by a claimant that died before recording it
//	"charged PAY CH"     charge CH was taken for payment PAY
//
// A takeover charges again only through the Ledger's Charge, which takes at
// most one charge per payment id.
type Progress struct {
	Payment string // "" until chosen
	Charge  string // "" until charged
}

// ParseProgress reads a recovery point; one it cannot read counts as
// nothing done, which is safe only because it is never written.
func ParseProgress(point string) Progress {
	f := strings.Fields(point)
	switch {
	case len(f) == 2 && f[0] == "payment":
		return Progress{Payment: f[1]}
	case len(f) == 3 && f[0] == "charged":
		return Progress{Payment: f[1], Charge: f[2]}
	}
	return Progress{}
}

// String is the recovery point to record.
func (p Progress) String() string {
	switch {
	case p.Charge != "":
		return "charged " + p.Payment + " " + p.Charge
	case p.Payment != "":
		return "payment " + p.Payment
	}
	return ""
}
