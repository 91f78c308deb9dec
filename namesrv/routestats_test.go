package namesrv

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rmqgo/nameserver/namesrv/route"
)

// TestRouteStatsCarryEveryExportedCounter: each field the metrics
// families read gets the route counter of the same name, so no family
// reads a zero that the tables count.
func TestRouteStatsCarryEveryExportedCounter(t *testing.T) {
	var st route.Stats
	sv := reflect.ValueOf(&st).Elem()
	for i := range sv.NumField() {
		if f := sv.Field(i); f.CanInt() {
			f.SetInt(int64(i + 1))
		} else {
			f.SetUint(uint64(i + 1))
		}
	}
	got := reflect.ValueOf(routeStats(st))
	for i := range got.NumField() {
		name := got.Type().Field(i).Name
		src := sv.FieldByName(name)
		require.True(t, src.IsValid(), "route.Stats has no %s", name)
		require.NotZero(t, got.Field(i).Interface(), name)
		require.EqualValues(t, src.Interface(), got.Field(i).Interface(), name)
	}
}
