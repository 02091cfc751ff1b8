// Package resources defines the typed objects of the botkit.dev/v1 API —
// SecretSet, ImagePullSecret, List and the server-side dry-run Plan — and the
// validation rules every part of botkit shares: object names, environment
// variable keys, value and set limits, labels and label selectors, regions and
// registry hosts.
//
// The same types serve three purposes:
//
//   - manifests read by `botkit apply` (spec.data holds value sources:
//     literal strings, {fromEnv: NAME} or {fromFile: PATH});
//   - request bodies sent to the platform (every value source already resolved
//     to a literal);
//   - objects returned by the platform (spec.keys and spec.username instead of
//     values, plus status).
//
// Validation errors never contain a value or part of one: they name the
// object, field or key at fault and the rule that was broken.
package resources
