package widget

import "strconv"

// IDPrefix begins every widget's id: "w-payment-1".
const IDPrefix = "w-"

// ID is the id of the n-th widget called name in its page: "w-payment-1".
// A permalink names the widget by what follows the prefix.
func ID(name string, n int) string { return IDPrefix + name + "-" + strconv.Itoa(n) }
