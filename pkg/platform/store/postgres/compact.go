package postgres

import (
	"fmt"
	"slices"
	"strings"
)

// Multi-row forms of the queued writes: a batch's updates of object rows,
// values and audit records go out as one statement each (arrays through
// unnest) instead of one statement per row. The columns of each are listed
// once (objectRowCols, valueCols, auditCols), in the order of the
// single-row statements' arguments; the statements and the arrays are made
// from them.
var (
	qUpdateObjects  = `UPDATE objects o SET ` + setFrom(objectRowCols[:11], "u") + ` FROM ` + unnestOf(objectRowCols, 1, "u") + ` WHERE o.id = u.id`
	qUpsertValues   = `INSERT INTO secret_values (` + names(valueCols) + `) SELECT * FROM ` + unnestOf(valueCols, 1, "u") + upsertValue
	qDeleteKeys     = `DELETE FROM secret_values WHERE (object_id, key) IN (SELECT * FROM ` + unnestOf(valueCols[:2], 1, "u") + `)`
	qInsertAudits   = `INSERT INTO audit (` + names(auditCols) + `) SELECT * FROM ` + unnestOf(auditCols, 1, "u")
	qInsertVersions = `INSERT INTO object_versions (` + names(versionCols) + `) SELECT * FROM ` + unnestOf(versionCols, 1, "u")
)

const upsertValue = ` ON CONFLICT (object_id, key) DO UPDATE SET size = excluded.size, ciphertext = excluded.ciphertext`

// column is a column of a multi-row write and its SQL type.
type column struct{ name, sqlType string }

var (
	objectRowCols = []column{{"labels", "text"}, {"keys", "text"}, {"host", "text"}, {"username", "text"}, {"version", "bigint"},
		{"generation", "bigint"}, {"state", "text"}, {"message", "text"}, {"updated_at", "bigint"}, {"managed", "bool"}, {"apply_set", "text"}, {"id", "bigint"}}
	valueCols   = []column{{"object_id", "bigint"}, {"key", "text"}, {"size", "int"}, {"ciphertext", "bytea"}}
	versionCols = []column{{"object_id", "bigint"}, {"version", "bigint"}, {"created_at", "bigint"}, {"actor", "text"}, {"source", "text"},
		{"added", "text"}, {"changed", "text"}, {"removed", "text"}, {"labels", "text"}, {"keys", "text"}, {"host", "text"}, {"username", "text"}}
	auditCols = []column{{"at", "bigint"}, {"org", "text"}, {"actor", "text"}, {"action", "text"}, {"kind", "text"}, {"name", "text"}, {"region", "text"}, {"keys", "text"}}
)

// unnestOf is `unnest($first::type[], ...) AS alias(names)`.
func unnestOf(cols []column, first int, alias string) string {
	var b strings.Builder
	b.WriteString("unnest(")
	for i, c := range cols {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "$%d::%s[]", first+i, c.sqlType)
	}
	return b.String() + ") AS " + alias + "(" + names(cols) + ")"
}

func names(cols []column) string {
	n := make([]string, len(cols))
	for i, c := range cols {
		n[i] = c.name
	}
	return strings.Join(n, ", ")
}

// setFrom is `name = alias.name, ...`.
func setFrom(cols []column, alias string) string {
	n := make([]string, len(cols))
	for i, c := range cols {
		n[i] = c.name + " = " + alias + "." + c.name
	}
	return strings.Join(n, ", ")
}

// compact rewrites the queued writes into fewer statements with the same
// effect. Only runs of object-row updates, value upserts, key deletions,
// version inserts, history purges and audit inserts are merged; any other
// statement (a savepoint, a counter) keeps its place between them. Within
// a run the last write of an object row, or of a value, wins, and audit
// records keep their order. A run's purges go after its versions: a purge
// deletes only what versions up to its own made unreadable, which a later
// version of the run does not change.
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
	case qUpdateObject, qUpsertValue, qDeleteValues, qInsertAudit, qInsertVersion, qInsertVersionValues, qPurgeVersions:
		return true
	}
	return false
}

type valueKey struct {
	id  int64
	key string
}

// rowWrites are the net writes of a run: the last update of each object
// row (in first-write order), value deletions and upserts (the last write
// of each value), and the audit records in order.
type rowWrites struct {
	objs, dels, ups, audits []queued
	// versions are version headers; versionValues and purges are array
	// statements, merged by concatenating their arrays.
	versions, versionValues, purges []queued
}

func collect(run []queued) rowWrites {
	var objs []queued
	objAt := map[int64]int{}
	var vals []queued // last write of each value: an upsert, or a deletion
	valAt := map[valueKey]int{}
	var audits []queued
	var rw rowWrites
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
		case qInsertVersion:
			rw.versions = append(rw.versions, w)
		case qInsertVersionValues:
			rw.versionValues = append(rw.versionValues, w)
		case qPurgeVersions:
			rw.purges = append(rw.purges, w)
		}
	}
	rw.objs, rw.audits = objs, audits
	for _, w := range vals {
		if w.sql == qUpsertValue {
			rw.ups = append(rw.ups, w)
		} else {
			rw.dels = append(rw.dels, w)
		}
	}
	return rw
}

func compactRun(out, run []queued) []queued {
	if len(run) == 1 {
		return append(out, run[0])
	}
	rw := collect(run)
	out = asOne(out, rw.objs, qUpdateObjects, objectRowCols)
	if len(rw.dels) > 0 {
		out = append(out, queued{qDeleteKeys, columns(rw.dels, valueCols[:2])})
	}
	out = asOne(out, rw.ups, qUpsertValues, valueCols)
	out = asOne(out, rw.versions, qInsertVersions, versionCols)
	out = concatArrays(out, rw.versionValues)
	out = concatArrays(out, rw.purges)
	return asOne(out, rw.audits, qInsertAudits, auditCols)
}

// concatArrays appends ws, statements of one SQL whose arguments are all
// arrays (one per column), as one statement of the concatenated arrays.
func concatArrays(out, ws []queued) []queued {
	switch len(ws) {
	case 0:
		return out
	case 1:
		return append(out, ws[0])
	}
	args := make([]any, len(ws[0].args))
	for c := range args {
		switch ws[0].args[c].(type) {
		case []int64:
			args[c] = concatArg[int64](ws, c)
		case []int32:
			args[c] = concatArg[int32](ws, c)
		case []string:
			args[c] = concatArg[string](ws, c)
		case [][]byte:
			args[c] = concatArg[[]byte](ws, c)
		default:
			panic(fmt.Sprintf("postgres: cannot concatenate an argument of type %T", ws[0].args[c]))
		}
	}
	return append(out, queued{ws[0].sql, args})
}

func concatArg[T any](ws []queued, c int) []T {
	n := 0
	for _, w := range ws {
		n += len(w.args[c].([]T))
	}
	a := make([]T, 0, n)
	for _, w := range ws {
		a = append(a, w.args[c].([]T)...)
	}
	return a
}

// asOne appends ws as one statement: the single-row write itself, or the
// multi-row form (multi, with the arrays of cols).
func asOne(out, ws []queued, multi string, cols []column) []queued {
	switch len(ws) {
	case 0:
		return out
	case 1:
		return append(out, ws[0])
	}
	return append(out, queued{multi, columns(ws, cols)})
}

// columns turns the arguments of each write into one typed array per
// column of cols (empty arrays when ws is).
func columns(ws []queued, cols []column) []any {
	out := make([]any, len(cols))
	for c, col := range cols {
		switch col.sqlType {
		case "text":
			out[c] = gather[string](ws, c)
		case "bigint":
			out[c] = gather[int64](ws, c)
		case "int":
			a := make([]int32, len(ws))
			for i, w := range ws {
				a[i] = int32(w.args[c].(int))
			}
			out[c] = a
		case "bool":
			out[c] = gather[bool](ws, c)
		case "bytea":
			out[c] = gather[[]byte](ws, c)
		default:
			panic("postgres: no Go type for column type " + col.sqlType)
		}
	}
	return out
}

func gather[T any](ws []queued, c int) []T {
	a := make([]T, len(ws))
	for i, w := range ws {
		a[i] = w.args[c].(T)
	}
	return slices.Clip(a)
}
