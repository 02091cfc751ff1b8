// Package platform is the botkit platform assembled: the HTTP API of
// api/openapi.yaml over a store the caller opens (store/sqlite,
// store/postgres; the core links no database driver and no metrics
// library). Its layers are packages of their own: service (the operations,
// authentication, administration; no HTTP), httpapi (routes, bodies, the
// code → status table), wire (the API's JSON), provision (per-region
// provisioners, registry checks) and encryption (values at rest). The
// botkit-platform command serves it (pkg/platform/cli, with package stores
// and Prometheus metrics, prommetrics); the botkit CLI runs the very same
// handler in-process for its embedded local platform (pkg/embedded, SQLite
// only).
//
// # Serving
//
//	st, err := sqlite.OpenDir(ctx, dir, sqlite.Options{})  // platform.db
//	srv, err := platform.Open(ctx, platform.Options{
//		Store:                  st,       // closed by srv.Close
//		DataDir:                dir,      // master.key, the tokens' epoch; "" for a shared store
//		Metrics:                nil,      // e.g. prommetrics.New(): /metrics
//		MasterKeyFile:          "",       // default DataDir/master.key, generated 0600
//		AllowPrivateRegistries: false,    // image pull secret checks: loopback/private allowed?
//		NoAuthOrg:              "",       // "local": requests without a token act as this org
//		Logger:                 logger,   // request logs; never bodies or values
//	})
//	defer srv.Close()
//	http.ListenAndServe(addr, srv.Handler())
//
// The embedded mode of the CLI opens the platform with NoAuthOrg "local"
// (created on first use, default region us-west) and calls Handler directly,
// e.g. from an http.RoundTripper; AllowPrivateRegistries should be true there
// since the registries are the user's own.
//
// # Administration
//
// Organizations and tokens are managed through a service.Admin: Server.Admin
// for an open server, or service.NewAdmin(store, dataDir) for a short-lived
// process (no master key needed; safe while servers run on the same store).
// CreateToken returns the token ("bkp_" + 52 base32 characters) once; only
// its SHA-256 is stored. RevokeToken takes effect on the next request of
// every server on that data directory (see service.TokensEpochFile), or within a
// second on every replica sharing a PostgreSQL store.
//
// # PostgreSQL and replicas
//
// With a PostgreSQL store (store/postgres) and no DataDir, several servers
// may share it; they need the same MasterKeyFile. Pending image pull secrets are claimed with a renewed lease
// (Options.ProvisionLease), so each is verified by one server, and taken
// over when that server dies. service.Migrate copies a SQLite data directory into
// an empty PostgreSQL database. While the database cannot be reached,
// requests are answered 503 (code unavailable).
//
// # Semantics
//
//   - Objects (SecretSet, ImagePullSecret; package resources) are named
//     uniquely per organization across regions and kinds; the region is fixed
//     at creation (a change is a 409 naming the current region).
//   - PATCH merges (creates if missing); PUT replaces, honours If-Match and
//     answers a per-key Plan with ?dryRun=true; a PUT that changes nothing
//     writes nothing.
//   - Every write leaves the object pending; the provisioner of its region
//     makes it ready or failed. Image pull secrets are checked against the
//     registry's /v2/ endpoint (basic auth, or the bearer-token challenge);
//     outbound connections never reach link-local or metadata addresses, nor
//     loopback/private ones unless AllowPrivateRegistries.
//   - A token sees only its organization; another organization's objects get
//     the same 404 as missing ones.
//   - Values are sealed with AES-256-GCM bound to organization, region, name
//     and key; responses, errors, logs and the audit log never contain them.
//   - Writes are durable when acknowledged (SQLite WAL, synchronous=FULL);
//     concurrent writes are group-committed (see package store/sqlite).
package platform
