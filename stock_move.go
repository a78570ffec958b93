package parcelgate

// How much stock moves when an order takes, returns or ships what it holds
// (decisions §7; interface §2.5 `allocated`, §4.4 PUT balances rule 5).
// The store loads the balances' levels, asks here, and adds the moves.

// StockLevel is a balance's stock: Quantity is what can still be
// allocated, Allocated what open orders hold.
type StockLevel struct{ Quantity, Allocated int64 }

// StockHold is what orders hold on one balance: Units allocated from
// BalanceID.
type StockHold struct {
	BalanceID int64
	Units     int64
}

// StockMove is what one move does to a balance: quantity += Quantity,
// allocated += Allocated (either may be negative or zero; a zero move
// still touches the balance, which changes for its pollers).
type StockMove struct {
	BalanceID           int64
	Quantity, Allocated int64
}

// Takes are the moves of an allocating order (Allocation.Allocates): each
// balance gives the sum of its rows' quantities, quantity -= q and
// allocated += q, one move per balance in the order first met.
func (a Allocation) Takes(rows []OrderRow) []StockMove {
	at := map[int64]int{}
	var moves []StockMove
	for i, row := range rows {
		id := a.BalanceIDs[i]
		j, ok := at[id]
		if !ok {
			j = len(moves)
			at[id] = j
			moves = append(moves, StockMove{BalanceID: id})
		}
		moves[j].Quantity -= int64(row.Quantity)
		moves[j].Allocated += int64(row.Quantity)
	}
	return moves
}

// ReleaseHolds decides what releasing holds does, hold by hold: only what
// the balance still has allocated is released (its supplier may have
// released allocations itself, PUT balances rule 5), so nothing returns
// twice and allocated never goes below zero; with restock it returns to
// quantity (Cancelled, Error, replaced content: StockReturn), else it
// leaves with the parcels (Delivered: StockShip). levels are the live
// balances' levels; a hold on a balance not among them (removed: it holds
// nothing) moves nothing and gets no move.
func ReleaseHolds(levels map[int64]StockLevel, holds []StockHold, restock bool) []StockMove {
	return moveHolds(levels, holds, func(l StockLevel, units int64) StockMove {
		n := min(l.Allocated, units)
		m := StockMove{Allocated: -n}
		if restock {
			m.Quantity = n
		}
		return m
	})
}

// RetakeHolds decides what taking holds again does, hold by hold, as a
// restored snapshot's allocated orders do from balances that gave their
// stock back meanwhile: a balance gives what it has, at most the units
// held (quantity -= n, allocated += n). Balances not among levels get no
// move.
func RetakeHolds(levels map[int64]StockLevel, holds []StockHold) []StockMove {
	return moveHolds(levels, holds, func(l StockLevel, units int64) StockMove {
		n := min(l.Quantity, units)
		return StockMove{Quantity: -n, Allocated: n}
	})
}

// moveHolds applies move to each hold in turn on the running level of its
// balance, so that several holds on one balance see each other's moves.
func moveHolds(levels map[int64]StockLevel, holds []StockHold, move func(StockLevel, int64) StockMove) []StockMove {
	run := make(map[int64]StockLevel, len(levels))
	var moves []StockMove
	for _, h := range holds {
		l, ok := run[h.BalanceID]
		if !ok {
			if l, ok = levels[h.BalanceID]; !ok {
				continue
			}
		}
		m := move(l, h.Units)
		m.BalanceID = h.BalanceID
		l.Quantity += m.Quantity
		l.Allocated += m.Allocated
		run[h.BalanceID] = l
		moves = append(moves, m)
	}
	return moves
}
