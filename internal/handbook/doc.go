// Package handbook reads the handbook's markdown the way a reader meets
// it: its prose, sentence by sentence (Sentences, Figures), and its curl
// sessions, command by command, with the answers they show (Sessions).
// The package's tests hold every chapter to both: the sentence figures
// of a handbook that reads well, and every curl session run against the
// sandbox API answering as printed.
package handbook
