package ledger

import "sort"

// currencies are the ISO 4217 alphabetic codes of the currencies in
// circulation (the standard's List One, without its fund codes such as
// BOV or USN, its precious metals, XDR and the testing codes XTS and
// XXX), lower-cased as the API writes them, in alphabetical order (Currency
// searches it by halves), each followed by one space or newline. A payment in any other code is refused: "usd" and "USD" name
// one currency, "zzz" none. A string, not a map: the page's module holds
// it as it is, with no table built at start-up.
const currencies = `aed afn all amd aoa ars aud awg azn bam bbd bdt bhd bif bmd bnd bob brl bsd btn bwp byn bzd
cad cdf chf clp cny cop crc cup cve czk djf dkk dop dzd egp ern etb eur fjd fkp gbp gel ghs gip gmd gnf
gtq gyd hkd hnl htg huf idr ils inr iqd irr isk jmd jod jpy kes kgs khr kmf kpw krw kwd kyd kzt lak lbp
lkr lrd lsl lyd mad mdl mga mkd mmk mnt mop mru mur mvr mwk mxn myr mzn nad ngn nio nok npr nzd omr pab
pen pgk php pkr pln pyg qar ron rsd rub rwf sar sbd scr sdg sek sgd shp sle sos srd ssp stn svc syp szl
thb tjs tmt tnd top try ttd twd tzs uah ugx usd uyu uzs ved ves vnd vuv wst xaf xcd xcg xof xpf yer zar
zmw zwg
`

// Currency returns the lower-case form of code and whether it is a known
// ISO 4217 currency, compared without case.
func Currency(code string) (string, bool) {
	if len(code) != 3 {
		return "", false
	}
	var c [3]byte
	for i := range c {
		b := code[i]
		if 'A' <= b && b <= 'Z' {
			b += 'a' - 'A'
		}
		if b < 'a' || b > 'z' {
			return "", false
		}
		c[i] = b
	}
	// A search by halves of the list, which is in alphabetical order: a
	// payment is checked on every request, and "usd" is near the end.
	key := string(c[:])
	n := (len(currencies) + 1) / 4
	i := 4 * sort.Search(n, func(m int) bool { return currencies[4*m:4*m+3] >= key })
	if i+3 <= len(currencies) && currencies[i:i+3] == key {
		return currencies[i : i+3], true
	}
	return "", false
}
