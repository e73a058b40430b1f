package sqlite

// BusyTimeout lets a test wait less for a lock another connection holds.
var BusyTimeout = &busyTimeout
