//go:build !unix

package fastpath

import "errors"

// mapShm is not available here: the store reads every time.
func mapShm(string) ([]byte, func(), error) {
	return nil, nil, errors.New("WAL index mapping needs a unix system")
}

func unmapShm([]byte) {}
