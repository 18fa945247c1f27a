package sqltext

// MaxExecComments lets the external tests build a statement just past the
// limit.
const MaxExecComments = maxExecComments

// MaxReadingTokens lets the external tests build a statement with more
// tokens than a reading holds.
const MaxReadingTokens = maxReadingTokens
