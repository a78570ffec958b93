// Package fastpath is the store's machinery for speed, behind one
// boundary: the rendered-answer cache, the WAL-index stamp that tells a
// SQLite reader nothing was committed, the coalescing of point reads into
// one statement, the turns of write transactions, the bounded maps the
// store keeps its hints in, the lists' kept totals, the keyset pages'
// cursors and boundaries, and the reading of a pipeline's answers.
//
// Each piece is exact by construction, never a cache with a lifetime: an
// answer is reused only for the very version of the stored row it was
// rendered from (the row's own change stamp, which every write of the row
// moves), under the encoding that rendered it; a WAL-index stamp is
// trusted only when SQLite's two copies of the header agree; a coalesced
// read is sent after it began, so it sees every commit acknowledged before
// it; a kept total is reused only while the newest change stamp of its
// scope, read from the rows for the very page, is the one it was counted
// at. A page boundary, which does have a lifetime, is a hint of where to
// read from, never an answer: the page is read afresh from it.
//
// It holds no rule and imports none: it never decides what a caller may
// see or do. The services of sqlstore hand it keys already scoped to the
// caller's organization and versions read from the caller's rows, and do
// the SQL themselves, passing the database work in as functions.
package fastpath
