package parcelgate

// DropshipSettlement is what a shipment reaching a final status does to
// the stock its rows hold (interface §2.5): for each row's hold, Units
// leave allocated and Returned of them go back to quantity.
type DropshipSettlement struct {
	BalanceID       int64
	Units, Returned int64
}

// SettleShipment decides the stock effect of a shipment that reached a
// final status, row by row (holds[i] is row i's balance and ordered
// quantity): Delivered keeps what was delivered out and returns the rest;
// Cancelled and Error return everything. Not final: no settlement.
func SettleShipment(s *DropshipShipment, balances []int64) []DropshipSettlement {
	if !s.Status.Value.Final() {
		return nil
	}
	d := s.Delivered()
	out := make([]DropshipSettlement, 0, len(balances))
	for i, row := range s.Consignment.Rows {
		if i >= len(balances) || balances[i] == 0 {
			continue
		}
		out = append(out, DropshipSettlement{BalanceID: balances[i], Units: int64(row.Quantity), Returned: int64(row.Quantity) - d[i]})
	}
	return out
}

// SettleHolds decides the moves of settlements on balances whose levels
// are levels: of each hold only what the balance still has allocated is
// released (its supplier may have released allocations itself, interface
// §4.4 PUT balances rule 5), and of that at most Returned goes back to
// quantity. Balances not among levels (removed) get no move.
func SettleHolds(levels map[int64]StockLevel, settle []DropshipSettlement) []StockMove {
	run := make(map[int64]StockLevel, len(levels))
	var moves []StockMove
	for _, s := range settle {
		l, ok := run[s.BalanceID]
		if !ok {
			if l, ok = levels[s.BalanceID]; !ok {
				continue
			}
		}
		n := min(l.Allocated, s.Units)
		back := max(0, min(s.Returned, n))
		l.Allocated -= n
		l.Quantity += back
		run[s.BalanceID] = l
		moves = append(moves, StockMove{BalanceID: s.BalanceID, Quantity: back, Allocated: -n})
	}
	return moves
}
