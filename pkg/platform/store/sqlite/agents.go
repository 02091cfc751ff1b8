package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/botkit-dev/botkit/pkg/platform/store"
	"github.com/botkit-dev/botkit/pkg/platform/store/rowcodec"
)

// Agents, their deployments, and leases (docs/deploy.md). The writer's object
// cache holds objects only: agents are read from the database.

const (
	qAgentByName   = `SELECT ` + rowcodec.AgentCols + rowcodec.AgentFrom + ` WHERE a.org_id = ? AND a.name = ?`
	qInsertAgent   = `INSERT INTO agents (org_id, name, region, labels, spec, version, generation, serving, latest, managed, apply_set, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
	qUpdateAgent   = `UPDATE agents SET region = ?, labels = ?, spec = ?, version = ?, generation = ?, serving = ?, latest = ?, managed = ?, apply_set = ?, updated_at = ? WHERE id = ?`
	qDeleteDeploys = `DELETE FROM deployments WHERE agent_id = ?`
	qDeleteAgent   = `DELETE FROM agents WHERE id = ?`
	qAppliedAgents = `SELECT ` + rowcodec.AgentCols + rowcodec.AgentFrom + ` WHERE a.org_id = ? AND a.apply_set = ? AND a.managed = 1 ORDER BY a.name`
	qInsertDeploy  = `INSERT INTO deployments (` + rowcodec.DeploymentCols + `) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
	qDeployment    = `SELECT ` + rowcodec.DeploymentCols + ` FROM deployments WHERE agent_id = ? AND number = ?`
	qFinishDeploy  = `UPDATE deployments SET result = ?, message = ?, finished_at = ? WHERE agent_id = ? AND number = ?`
	// qAcquireLease takes a free or expired lease, or renews the holder's
	// own: the update is skipped (no change) while another holder's lease
	// runs.
	qAcquireLease = `INSERT INTO leases (name, holder, expires) VALUES (?, ?, ?)
		ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires = excluded.expires
		WHERE leases.holder = excluded.holder OR leases.expires <= ?`
	qReleaseLease = `DELETE FROM leases WHERE name = ? AND holder = ?`
)

// agentQueries are the agents' statements the writer prepares.
var agentQueries = []string{qAgentByName, qInsertAgent, qUpdateAgent, qDeleteDeploys, qDeleteAgent, qAppliedAgents,
	qInsertDeploy, qDeployment, qFinishDeploy, qAcquireLease, qReleaseLease}

func getAgent(ctx context.Context, q querier, orgID int64, name string) (store.Agent, error) {
	a, err := rowcodec.ScanAgent(q.QueryRowContext(ctx, qAgentByName, orgID, name))
	if errors.Is(err, sql.ErrNoRows) {
		return store.Agent{}, store.ErrNotFound
	}
	return a, err
}

func getDeployment(ctx context.Context, q querier, agentID, number int64) (store.Deployment, error) {
	d, err := rowcodec.ScanDeployment(q.QueryRowContext(ctx, qDeployment, agentID, number))
	if errors.Is(err, sql.ErrNoRows) {
		return store.Deployment{}, store.ErrNotFound
	}
	return d, err
}

func (t *sqlTx) Agent(ctx context.Context, orgID int64, name string) (store.Agent, error) {
	return getAgent(ctx, t.b, orgID, name)
}

func (t *sqlTx) PutAgent(ctx context.Context, a store.Agent) (int64, error) {
	labels, err := rowcodec.EncodeLabels(a.Labels)
	if err != nil {
		return 0, err
	}
	if a.ID != 0 {
		// An agent's organization and name are fixed when it is created.
		_, err := t.exec(ctx, qUpdateAgent, a.Region, labels, string(a.Spec), a.Version, a.Generation,
			a.Serving, a.Latest, a.Managed, a.ApplySet, a.UpdatedAt.UnixNano(), a.ID)
		return a.ID, err
	}
	res, err := t.exec(ctx, qInsertAgent, a.OrgID, a.Name, a.Region, labels, string(a.Spec), a.Version, a.Generation,
		a.Serving, a.Latest, a.Managed, a.ApplySet, a.CreatedAt.UnixNano(), a.UpdatedAt.UnixNano())
	if isUnique(err) {
		return 0, store.ErrExists
	}
	if err != nil {
		return 0, err
	}
	return res.LastInsertId()
}

func (t *sqlTx) DeleteAgent(ctx context.Context, id int64) error {
	for _, q := range []string{qDeleteDeploys, qDeleteSessions} {
		if _, err := t.exec(ctx, q, id); err != nil {
			return err
		}
	}
	res, err := t.exec(ctx, qDeleteAgent, id)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err == nil && n == 0 {
		return store.ErrNotFound
	}
	return nil
}

func (t *sqlTx) AppliedAgents(ctx context.Context, orgID int64, applySet string) ([]store.Agent, error) {
	return queryAll(ctx, t.b, rowcodec.ScanAgent, qAppliedAgents, orgID, applySet)
}

func (t *sqlTx) PutDeployment(ctx context.Context, d store.Deployment) error {
	_, err := t.exec(ctx, qInsertDeploy, rowcodec.DeploymentArgs(d)...)
	if isUnique(err) {
		return store.ErrExists
	}
	return err
}

func (t *sqlTx) Deployment(ctx context.Context, agentID, number int64) (store.Deployment, error) {
	return getDeployment(ctx, t.b, agentID, number)
}

func (t *sqlTx) FinishDeployment(ctx context.Context, agentID, number int64, result, message string, at time.Time) error {
	res, err := t.exec(ctx, qFinishDeploy, result, message, at.UnixNano(), agentID, number)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err == nil && n == 0 {
		return store.ErrNotFound
	}
	return nil
}

func (s *Store) Agent(ctx context.Context, orgID int64, name string) (store.Agent, error) {
	return getAgent(ctx, s.rdb(), orgID, name)
}

func (s *Store) Agents(ctx context.Context, orgID int64, region string) ([]store.Agent, error) {
	if region == "" {
		return queryAll(ctx, s.rdb(), rowcodec.ScanAgent, `SELECT `+rowcodec.AgentCols+rowcodec.AgentFrom+` WHERE a.org_id = ? ORDER BY a.name`, orgID)
	}
	return queryAll(ctx, s.rdb(), rowcodec.ScanAgent, `SELECT `+rowcodec.AgentCols+rowcodec.AgentFrom+` WHERE a.org_id = ? AND a.region = ? ORDER BY a.name`, orgID, region)
}

func (s *Store) RegionAgents(ctx context.Context, region string) ([]store.Agent, error) {
	return queryAll(ctx, s.rdb(), rowcodec.ScanAgent, `SELECT `+rowcodec.AgentCols+rowcodec.AgentFrom+` WHERE a.region = ? ORDER BY o.name, a.name`, region)
}

func (s *Store) Deployments(ctx context.Context, agentID, before int64, limit int) ([]store.Deployment, error) {
	if before <= 0 {
		before = 1 << 62
	}
	return queryAll(ctx, s.rdb(), rowcodec.ScanDeployment,
		`SELECT `+rowcodec.DeploymentCols+` FROM deployments WHERE agent_id = ? AND number < ? ORDER BY number DESC LIMIT ?`, agentID, before, limit)
}

func (s *Store) Deployment(ctx context.Context, agentID, number int64) (store.Deployment, error) {
	return getDeployment(ctx, s.rdb(), agentID, number)
}

// AcquireLease implements store.AgentStore. The clock is this machine's:
// the processes sharing a SQLite file all run on the machine that holds it.
func (s *Store) AcquireLease(ctx context.Context, name, holder string, ttl time.Duration) (bool, error) {
	var held bool
	err := s.Update(ctx, func(ctx context.Context, tx store.Tx) error {
		now := time.Now().UnixNano()
		res, err := tx.(*sqlTx).exec(ctx, qAcquireLease, name, holder, now+ttl.Nanoseconds(), now)
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		held = n > 0
		return err
	})
	return held, err
}

func (s *Store) ReleaseLease(ctx context.Context, name, holder string) error {
	return s.Update(ctx, func(ctx context.Context, tx store.Tx) error {
		_, err := tx.(*sqlTx).exec(ctx, qReleaseLease, name, holder)
		return err
	})
}
