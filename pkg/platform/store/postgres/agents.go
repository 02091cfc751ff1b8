package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/botkit-dev/botkit/pkg/platform/store"
	"github.com/botkit-dev/botkit/pkg/platform/store/rowcodec"
	"github.com/jackc/pgx/v5"
)

// Agents, their deployments, and leases (docs/deploy.md). An agent read in a
// transaction is locked as an object is (FOR UPDATE, or its name's
// advisory lock when it is missing), so read-modify-writes of one agent
// from any replica run one after the other.

const (
	qAgentLock = `SELECT ` + rowcodec.AgentCols + rowcodec.AgentFrom + ` WHERE a.org_id = $1 AND a.name = $2 FOR UPDATE OF a`
	qAgent     = `SELECT ` + rowcodec.AgentCols + rowcodec.AgentFrom + ` WHERE a.org_id = $1 AND a.name = $2`
	// qAgentNameLock is qNameLock in the agents' namespace ("agent/" never
	// starts an object's name).
	qAgentNameLock = `SELECT pg_advisory_xact_lock(hashtextextended('agent/' || $2, $1))`
	qInsertAgent   = `INSERT INTO agents (org_id, name, region, labels, spec, version, generation, serving, latest, managed, apply_set, created_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) ON CONFLICT DO NOTHING RETURNING id`
	qUpdateAgent   = `UPDATE agents SET region = $1, labels = $2, spec = $3, version = $4, generation = $5, serving = $6, latest = $7, managed = $8, apply_set = $9, updated_at = $10 WHERE id = $11`
	qDeleteDeploys = `DELETE FROM deployments WHERE agent_id = $1`
	qDeleteAgent   = `DELETE FROM agents WHERE id = $1`
	// qAppliedAgents locks the rows it returns, as qAppliedObjects does.
	qAppliedAgents = `SELECT ` + rowcodec.AgentCols + rowcodec.AgentFrom + ` WHERE a.org_id = $1 AND a.apply_set = $2 AND a.managed ORDER BY a.name FOR UPDATE OF a`
	qInsertDeploy  = `INSERT INTO deployments (` + rowcodec.DeploymentCols + `) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16) ON CONFLICT DO NOTHING`
	qDeployment    = `SELECT ` + rowcodec.DeploymentCols + ` FROM deployments WHERE agent_id = $1 AND number = $2`
	qDeployments   = `SELECT ` + rowcodec.DeploymentCols + ` FROM deployments WHERE agent_id = $1 AND number < $2 ORDER BY number DESC LIMIT $3`
	qFinishDeploy  = `UPDATE deployments SET result = $1, message = $2, finished_at = $3 WHERE agent_id = $4 AND number = $5`
	qOrgAgents     = `SELECT ` + rowcodec.AgentCols + rowcodec.AgentFrom + ` WHERE a.org_id = $1 AND ($2 = '' OR a.region = $2) ORDER BY a.name`
	qRegionAgents  = `SELECT ` + rowcodec.AgentCols + rowcodec.AgentFrom + ` WHERE a.region = $1 ORDER BY o.name, a.name`
	// qAcquireLease takes a free or expired lease, or renews the holder's
	// own, on the database's clock; while another holder's lease runs the
	// update is skipped and no row is returned. Concurrent acquirers of one
	// name wait for each other on the row (or its key), so one wins.
	qAcquireLease = `INSERT INTO leases (name, holder, expires) VALUES ($1, $2, now() + $3 * interval '1 microsecond')
		ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires = excluded.expires
		WHERE leases.holder = excluded.holder OR leases.expires <= now()`
	qReleaseLease = `DELETE FROM leases WHERE name = $1 AND holder = $2`
)

func scanAgents(rows pgx.Rows) ([]store.Agent, error) {
	defer rows.Close()
	var out []store.Agent
	for rows.Next() {
		a, err := rowcodec.ScanAgent(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, rows.Err()
}

func scanDeployments(rows pgx.Rows) ([]store.Deployment, error) {
	defer rows.Close()
	var out []store.Deployment
	for rows.Next() {
		d, err := rowcodec.ScanDeployment(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, rows.Err()
}

// Agent reads and locks the agent's row until the transaction ends; a
// missing agent locks its name, so concurrent creators of one name run one
// after the other.
func (t *pgTx) Agent(ctx context.Context, orgID int64, name string) (store.Agent, error) {
	var a store.Agent
	found := false
	scan := func(br pgx.BatchResults) error {
		var err error
		a, err = rowcodec.ScanAgent(br.QueryRow())
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		found = err == nil
		return err
	}
	if err := t.one(ctx, qAgentLock, []any{orgID, name}, scan); err != nil {
		return store.Agent{}, err
	}
	if !found {
		err := t.send(ctx, []queued{{qAgentNameLock, []any{orgID, name}}, {qAgentLock, []any{orgID, name}}},
			[]func(pgx.BatchResults) error{nil, scan})
		if err != nil {
			return store.Agent{}, err
		}
		if !found {
			return store.Agent{}, store.ErrNotFound
		}
	}
	t.maxSeen = max(t.maxSeen, a.Version)
	return a, nil
}

// PutAgent queues the update of an existing agent (its organization and
// name are fixed when it is created); an insert is sent at once for its ID.
func (t *pgTx) PutAgent(ctx context.Context, a store.Agent) (int64, error) {
	labels, err := rowcodec.EncodeLabels(a.Labels)
	if err != nil {
		return 0, err
	}
	if a.ID != 0 {
		t.enqueue(qUpdateAgent, a.Region, labels, string(a.Spec), a.Version, a.Generation, a.Serving, a.Latest, a.Managed, a.ApplySet, a.UpdatedAt.UnixNano(), a.ID)
		return a.ID, nil
	}
	err = t.onew(ctx, qInsertAgent, []any{a.OrgID, a.Name, a.Region, labels, string(a.Spec), a.Version, a.Generation, a.Serving, a.Latest,
		a.Managed, a.ApplySet, a.CreatedAt.UnixNano(), a.UpdatedAt.UnixNano()}, func(br pgx.BatchResults) error {
		err := br.QueryRow().Scan(&a.ID)
		if errors.Is(err, pgx.ErrNoRows) {
			return store.ErrExists
		}
		return err
	})
	return a.ID, err
}

func (t *pgTx) DeleteAgent(ctx context.Context, id int64) error {
	var n int64
	err := t.sendw(ctx, true, []queued{{qDeleteDeploys, []any{id}}, {qDeleteSessions, []any{id}}, {qDeleteAgent, []any{id}}},
		[]func(pgx.BatchResults) error{nil, nil, rowsAffected(&n)})
	if err != nil {
		return err
	}
	if n == 0 {
		return store.ErrNotFound
	}
	return nil
}

func (t *pgTx) AppliedAgents(ctx context.Context, orgID int64, applySet string) ([]store.Agent, error) {
	var out []store.Agent
	err := t.one(ctx, qAppliedAgents, []any{orgID, applySet}, func(br pgx.BatchResults) error {
		rows, err := br.Query()
		if err != nil {
			return err
		}
		out, err = scanAgents(rows)
		return err
	})
	for _, a := range out {
		t.maxSeen = max(t.maxSeen, a.Version)
	}
	return out, err
}

func (t *pgTx) PutDeployment(ctx context.Context, d store.Deployment) error {
	var n int64
	if err := t.onew(ctx, qInsertDeploy, rowcodec.DeploymentArgs(d), rowsAffected(&n)); err != nil {
		return err
	}
	if n == 0 {
		return store.ErrExists
	}
	return nil
}

func (t *pgTx) Deployment(ctx context.Context, agentID, number int64) (store.Deployment, error) {
	var d store.Deployment
	err := t.one(ctx, qDeployment, []any{agentID, number}, func(br pgx.BatchResults) error {
		var err error
		d, err = rowcodec.ScanDeployment(br.QueryRow())
		if errors.Is(err, pgx.ErrNoRows) {
			return store.ErrNotFound
		}
		return err
	})
	return d, err
}

func (t *pgTx) FinishDeployment(ctx context.Context, agentID, number int64, result, message string, at time.Time) error {
	var n int64
	if err := t.onew(ctx, qFinishDeploy, []any{result, message, at.UnixNano(), agentID, number}, rowsAffected(&n)); err != nil {
		return err
	}
	if n == 0 {
		return store.ErrNotFound
	}
	return nil
}

func (s *Store) Agent(ctx context.Context, orgID int64, name string) (store.Agent, error) {
	var a store.Agent
	err := s.read(ctx, func(ctx context.Context) error {
		var err error
		a, err = rowcodec.ScanAgent(s.pool.QueryRow(ctx, qAgent, orgID, name))
		if errors.Is(err, pgx.ErrNoRows) {
			return store.ErrNotFound
		}
		return err
	})
	return a, err
}

func (s *Store) Agents(ctx context.Context, orgID int64, region string) ([]store.Agent, error) {
	return s.queryAgents(ctx, qOrgAgents, orgID, region)
}

func (s *Store) RegionAgents(ctx context.Context, region string) ([]store.Agent, error) {
	return s.queryAgents(ctx, qRegionAgents, region)
}

func (s *Store) queryAgents(ctx context.Context, q string, args ...any) ([]store.Agent, error) {
	var out []store.Agent
	err := s.read(ctx, func(ctx context.Context) error {
		rows, err := s.pool.Query(ctx, q, args...)
		if err != nil {
			return err
		}
		out, err = scanAgents(rows)
		return err
	})
	return out, err
}

func (s *Store) Deployments(ctx context.Context, agentID, before int64, limit int) ([]store.Deployment, error) {
	if before <= 0 {
		before = 1 << 62
	}
	var out []store.Deployment
	err := s.read(ctx, func(ctx context.Context) error {
		rows, err := s.pool.Query(ctx, qDeployments, agentID, before, limit)
		if err != nil {
			return err
		}
		out, err = scanDeployments(rows)
		return err
	})
	return out, err
}

func (s *Store) Deployment(ctx context.Context, agentID, number int64) (store.Deployment, error) {
	var d store.Deployment
	err := s.read(ctx, func(ctx context.Context) error {
		var err error
		d, err = rowcodec.ScanDeployment(s.pool.QueryRow(ctx, qDeployment, agentID, number))
		if errors.Is(err, pgx.ErrNoRows) {
			return store.ErrNotFound
		}
		return err
	})
	return d, err
}

// AcquireLease implements store.AgentStore in one statement, on the
// database's clock (now()), which every replica shares.
func (s *Store) AcquireLease(ctx context.Context, name, holder string, ttl time.Duration) (bool, error) {
	var held bool
	err := s.read(ctx, func(ctx context.Context) error {
		tag, err := s.pool.Exec(ctx, qAcquireLease, name, holder, ttl.Microseconds())
		held = tag.RowsAffected() > 0
		return err
	})
	return held, err
}

func (s *Store) ReleaseLease(ctx context.Context, name, holder string) error {
	return s.read(ctx, func(ctx context.Context) error {
		_, err := s.pool.Exec(ctx, qReleaseLease, name, holder)
		return err
	})
}
