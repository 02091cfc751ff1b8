package postgres

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/botkit-dev/botkit/pkg/platform/store"
)

// The statements that read or write objects and values, agents, their
// deployments and leases by key use an index whatever the tables'
// statistics: their generic plans, made once per connection, are checked on
// tables analyzed while they held a few rows — where a sequential scan looks
// cheapest and stays in the plan while the rows' dead versions spread over
// many pages.
func TestPlansUseIndexes(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, pg.Database(t), Options{})
	org := createOrg(t, s)
	for i := range 3 {
		if _, err := setKey(s, org.ID, fmt.Sprint("set-", i), "K"); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 3 {
		if err := s.Update(ctx, func(ctx context.Context, tx store.Tx) error {
			id, err := tx.PutAgent(ctx, store.Agent{OrgID: org.ID, Name: fmt.Sprint("bot-", i), Region: fmt.Sprint("region-", i), Spec: []byte("{}"), Version: int64(i + 1), Generation: 1})
			if err != nil {
				return err
			}
			return tx.PutDeployment(ctx, store.Deployment{AgentID: id, Number: 1, Result: "rolling-out"})
		}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.AcquireLease(ctx, fmt.Sprint("reconcile/region-", i), "h", time.Minute); err != nil {
			t.Fatal(err)
		}
	}
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "ANALYZE objects, secret_values, agents, deployments, leases"); err != nil {
		t.Fatal(err)
	}
	statements := map[string]string{
		"qObjectLock": qObjectLock, "qObject": qObject, "qValues": qValues, "qUpdateObject": qUpdateObject,
		"qDeleteValues": qDeleteValues, "qDeleteAll": qDeleteAll, "qDeleteObject": qDeleteObject,
		"qAppliedObjects": qAppliedObjects, "qLockRows": qLockRows, "qExpectCurrent": qExpectCurrent,
		"qUpdateObjects": qUpdateObjects, "qDeleteKeys": qDeleteKeys,
		"qAgentLock": qAgentLock, "qAgent": qAgent, "qUpdateAgent": qUpdateAgent, "qDeleteDeploys": qDeleteDeploys,
		"qDeleteAgent": qDeleteAgent, "qAppliedAgents": qAppliedAgents, "qDeployment": qDeployment, "qDeployments": qDeployments,
		"qFinishDeploy": qFinishDeploy, "qOrgAgents": qOrgAgents, "qRegionAgents": qRegionAgents, "qAcquireLease": qAcquireLease,
		"qReleaseLease": qReleaseLease,
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
		for _, table := range []string{"objects", "secret_values", "agents", "deployments", "leases"} {
			if strings.Contains(text, "Seq Scan on "+table) {
				t.Errorf("%s scans a whole table:\n%s", name, text)
			}
		}
		// With sequential scans off, a statement that no index serves
		// scans a whole index instead: the region's agents (read by the
		// reconciler every second) have an index of their own.
		if name == "qRegionAgents" && !strings.Contains(text, "agents_region") {
			t.Errorf("%s does not use index agents_region:\n%s", name, text)
		}
	}
}
