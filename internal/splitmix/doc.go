// Package splitmix holds the splitmix64 finalizer that the route tables'
// hashes (the interned-snapshot key, the topic-table digest of a
// registration) chain their seeded parts through.
package splitmix
