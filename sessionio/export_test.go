package sessionio

// WriteFileNoSync is WriteFile without waiting for the disk, for the
// benchmarks that report that wait on its own line.
func WriteFileNoSync(path string, data []byte) error { return writeFile(path, data, false) }
