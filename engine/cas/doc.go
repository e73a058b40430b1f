// Package cas models a compare-and-set guard on a state change:
// ship(order, version 7) is called twice; with the version in the
// UPDATE's WHERE clause the first call ships and bumps the version to 8,
// and the second changes nothing.
//
// # Rules
//
// The order is at Read, version 7, and every call carries that version.
// Each call runs one UPDATE that ships the order and adds one to its
// version; with cas on, the UPDATE also says AND version = 7, so it
// changes a row only while the order is at the version the caller read. A
// call whose UPDATE changed no row ships nothing.
//
// # Parameters
//
// calls, the first call and its retries (default 2); cas (default on).
//
// # Published figures
//
//   - two calls with the version check: 1 shipment, version 8; the rows
//     changed per call are 1, then 0.
//   - without it: 2 shipments, version 9.
package cas
