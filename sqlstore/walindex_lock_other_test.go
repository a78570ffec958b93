//go:build !linux

package sqlstore_test

import "errors"

func shmDMSHolder(string) (int, error) {
	return 0, errors.New("the lock check is written for Linux")
}
