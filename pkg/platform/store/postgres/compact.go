package postgres

import "slices"

// Multi-row forms of the queued writes: a batch's updates of object rows,
// values and audit records go out as one statement each (arrays through
// unnest) instead of one statement per row.
const (
	qUpdateObjects = `UPDATE objects o SET labels = u.labels, keys = u.keys, host = u.host, username = u.username, version = u.version,
		generation = u.generation, state = u.state, message = u.message, updated_at = u.updated_at, managed = u.managed, apply_set = u.apply_set
		FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[], $6::bigint[], $7::text[], $8::text[], $9::bigint[], $10::bool[], $11::text[], $12::bigint[])
		AS u(labels, keys, host, username, version, generation, state, message, updated_at, managed, apply_set, id) WHERE o.id = u.id`
	qUpsertValues = `INSERT INTO secret_values (object_id, key, size, ciphertext) SELECT * FROM unnest($1::bigint[], $2::text[], $3::int[], $4::bytea[])
		ON CONFLICT (object_id, key) DO UPDATE SET size = excluded.size, ciphertext = excluded.ciphertext`
	qDeleteKeys   = `DELETE FROM secret_values WHERE (object_id, key) IN (SELECT * FROM unnest($1::bigint[], $2::text[]))`
	qInsertAudits = `INSERT INTO audit (at, org, actor, action, kind, name, region, keys)
		SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[])`
)

// compact rewrites the queued writes into fewer statements with the same
// effect. Only runs of object-row updates, value upserts, key deletions and
// audit inserts are merged; any other statement (a savepoint, a counter)
// keeps its place between them. Within a run the last write of an object
// row, or of a value, wins, and audit records keep their order.
func compact(q []queued) []queued {
	out := make([]queued, 0, len(q))
	for i := 0; i < len(q); {
		j := i
		for j < len(q) && compactable(q[j].sql) {
			j++
		}
		if j == i {
			out = append(out, q[i])
			i++
			continue
		}
		out = compactRun(out, q[i:j])
		i = j
	}
	return out
}

func compactable(sql string) bool {
	switch sql {
	case qUpdateObject, qUpsertValue, qDeleteValues, qInsertAudit:
		return true
	}
	return false
}

type valueKey struct {
	id  int64
	key string
}

func compactRun(out, run []queued) []queued {
	if len(run) == 1 {
		return append(out, run[0])
	}
	var objs []queued // last update of each object row, in first-write order
	objAt := map[int64]int{}
	var vals []queued // last write of each value: an upsert, or a deletion (nil args)
	valAt := map[valueKey]int{}
	var audits []queued
	setVal := func(k valueKey, w queued) {
		if at, ok := valAt[k]; ok {
			vals[at] = w
			return
		}
		valAt[k] = len(vals)
		vals = append(vals, w)
	}
	for _, w := range run {
		switch w.sql {
		case qUpdateObject:
			id := w.args[11].(int64)
			if at, ok := objAt[id]; ok {
				objs[at] = w
			} else {
				objAt[id] = len(objs)
				objs = append(objs, w)
			}
		case qUpsertValue:
			setVal(valueKey{w.args[0].(int64), w.args[1].(string)}, w)
		case qDeleteValues:
			id := w.args[0].(int64)
			for _, k := range w.args[1].([]string) {
				setVal(valueKey{id, k}, queued{sql: qDeleteValues, args: []any{id, k}})
			}
		case qInsertAudit:
			audits = append(audits, w)
		}
	}
	switch len(objs) {
	case 0:
	case 1:
		out = append(out, objs[0])
	default:
		out = append(out, queued{qUpdateObjects, columns(objs, 12)})
	}
	var ups, dels []queued
	for _, w := range vals {
		if w.sql == qUpsertValue {
			ups = append(ups, w)
		} else {
			dels = append(dels, w)
		}
	}
	if len(dels) > 0 {
		out = append(out, queued{qDeleteKeys, columns(dels, 2)})
	}
	switch len(ups) {
	case 0:
	case 1:
		out = append(out, ups[0])
	default:
		out = append(out, queued{qUpsertValues, columns(ups, 4)})
	}
	switch len(audits) {
	case 0:
	case 1:
		out = append(out, audits[0])
	default:
		out = append(out, queued{qInsertAudits, columns(audits, 8)})
	}
	return out
}

// columns turns the first n arguments of each write into n typed arrays.
func columns(ws []queued, n int) []any {
	cols := make([]any, n)
	for c := range n {
		switch ws[0].args[c].(type) {
		case string:
			cols[c] = gather[string](ws, c)
		case int64:
			cols[c] = gather[int64](ws, c)
		case int:
			a := make([]int32, len(ws))
			for i, w := range ws {
				a[i] = int32(w.args[c].(int))
			}
			cols[c] = a
		case bool:
			cols[c] = gather[bool](ws, c)
		case []byte:
			cols[c] = gather[[]byte](ws, c)
		}
	}
	return cols
}

func gather[T any](ws []queued, c int) []T {
	a := make([]T, len(ws))
	for i, w := range ws {
		a[i] = w.args[c].(T)
	}
	return slices.Clip(a)
}
