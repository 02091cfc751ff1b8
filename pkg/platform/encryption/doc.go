// Package encryption encrypts the values the platform stores: AES-256-GCM
// under one master key, each ciphertext bound to its organization, region,
// object and key, and the key checked against the store it is used with (a
// missing or different key is refused, never replaced).
//
// It imports the store (for the key check) and nothing of HTTP.
package encryption
