package postgres

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// The statements that read or write objects and values by key use an
// index whatever the tables' statistics: their generic plans, made once per
// connection, are checked on a table analyzed while it held a few rows —
// where a sequential scan looks cheapest and stays in the plan while the
// rows' dead versions spread over many pages.
func TestPlansUseIndexes(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, pg.Database(t), Options{})
	org := createOrg(t, s)
	for i := range 3 {
		if _, err := setKey(s, org.ID, fmt.Sprint("set-", i), "K"); err != nil {
			t.Fatal(err)
		}
	}
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "ANALYZE objects, secret_values"); err != nil {
		t.Fatal(err)
	}
	statements := map[string]string{
		"qObjectLock": qObjectLock, "qObject": qObject, "qValues": qValues, "qUpdateObject": qUpdateObject,
		"qDeleteValues": qDeleteValues, "qDeleteAll": qDeleteAll, "qDeleteObject": qDeleteObject,
		"qAppliedObjects": qAppliedObjects, "qLockRows": qLockRows, "qExpectCurrent": qExpectCurrent,
		"qUpdateObjects": qUpdateObjects, "qDeleteKeys": qDeleteKeys,
	}
	param := regexp.MustCompile(`\$(\d+)`)
	for name, sql := range statements {
		n := 0
		for _, m := range param.FindAllStringSubmatch(sql, -1) {
			v, err := strconv.Atoi(m[1])
			if err != nil {
				t.Fatal(err)
			}
			n = max(n, v)
		}
		if _, err := conn.Exec(ctx, "PREPARE p AS "+sql); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		rows, err := conn.Query(ctx, "EXPLAIN EXECUTE p("+strings.TrimSuffix(strings.Repeat("NULL, ", n), ", ")+")")
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var plan []string
		for rows.Next() {
			var line string
			if err := rows.Scan(&line); err != nil {
				t.Fatal(err)
			}
			plan = append(plan, line)
		}
		if err := rows.Err(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if _, err := conn.Exec(ctx, "DEALLOCATE p"); err != nil {
			t.Fatal(err)
		}
		text := strings.Join(plan, "\n")
		if strings.Contains(text, "Seq Scan on objects") || strings.Contains(text, "Seq Scan on secret_values") {
			t.Errorf("%s scans a whole table:\n%s", name, text)
		}
	}
}
