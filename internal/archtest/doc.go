// Package archtest holds the test that keeps docs/ARCHITECTURE.md's layout
// table true: every package of the module is in the table, and imports only
// what its row allows. The package has no code of its own.
package archtest
