//go:build race

package main

// raceBuild builds the binary under test with the race detector too.
const raceBuild = true
