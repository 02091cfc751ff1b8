// Package apply loads manifests (files, directories, stdin; YAML, JSON,
// Lists) into SecretSets and ImagePullSecrets, strictly and with file:line
// for every problem, resolves their value sources (literal, fromEnv,
// fromFile relative to the manifest), and groups them by organization for
// the platform's atomic apply and delete operations. It never prints or
// returns a value in an error.
package apply
