-- Pure text rendering of what the server sends: tables, SQL blocks, charts
-- and history, as lists of lines for the chat panel. Nothing here touches a
-- buffer, so each function is easy to test on its own.
local M = {}

-- nvim_strwidth: strdisplaywidth's answer for one-line cells, 2.4 times faster.
local width = vim.api.nvim_strwidth

-- cell is how one value of a result row reads in a table: JSON null is
-- NULL, and a value on several lines stays on one.
function M.cell(value)
  if value == vim.NIL or value == nil then
    return "NULL"
  end
  local kind = type(value)
  if kind == "number" then
    -- Integers arrive as Lua numbers: show 42, not 42.0 or 4.2e+01, and
    -- every digit up to 2^53, where doubles stop holding integers exactly.
    if value == math.floor(value) and math.abs(value) < 2 ^ 53 then
      return string.format("%d", value)
    end
    -- tostring keeps 14 digits; the shortest form that reads back as the
    -- same number keeps them all.
    for _, digits in ipairs({ 15, 16, 17 }) do
      local text = string.format("%." .. digits .. "g", value)
      if tonumber(text) == value then
        return text
      end
    end
    return tostring(value)
  elseif kind == "string" then
    return (value:gsub("\r?\n", "⏎"):gsub("\t", " "))
  elseif kind == "table" then
    return vim.json.encode(value)
  end
  return tostring(value)
end

-- shorten cuts text to at most size display cells, ending it with "…".
-- It walks the characters once, measuring only the multibyte ones: a
-- 500-row table may cut thousands of cells. known is text's width when the
-- caller has it.
function M.shorten(text, size, known)
  if (known or width(text)) <= size then
    return text
  end
  if not text:find("[\128-\255]") then -- ASCII: a byte is a cell
    return text:sub(1, math.max(size - 1, 0)) .. "…"
  end
  local used, stop = 0, 0
  for start, char in text:gmatch("()([%z\1-\127\194-\244][\128-\191]*)") do
    local w = #char == 1 and 1 or width(char)
    if used + w > size - 1 then
      break
    end
    used, stop = used + w, start + #char - 1
  end
  return text:sub(1, stop) .. "…"
end

-- MIN_COLUMN is the narrowest a column is cut to, so that a cut value
-- still reads (a date, a name's start); a column narrower than that keeps
-- its width.
local MIN_COLUMN = 8

-- fit makes a table of these column widths take at most max_width cells
-- (each column takes 3 more, the table 1): it keeps the first columns
-- that fit at their narrowest, then narrows the widest of those evenly
-- until they fit. It returns how many columns are kept and whether any
-- was narrowed; widths holds the kept columns' new widths.
local function fit(widths, max_width)
  local narrowest, kept, used = {}, 0, 1
  for c, w in ipairs(widths) do
    narrowest[c] = math.min(w, MIN_COLUMN)
    if kept == c - 1 and (kept == 0 or used + narrowest[c] + 3 <= max_width) then
      kept, used = c, used + narrowest[c] + 3
    end
  end
  local budget = max_width - 3 * kept - 1
  local function total(cap)
    local sum = 0
    for c = 1, kept do
      sum = sum + math.max(narrowest[c], math.min(widths[c], cap))
    end
    return sum
  end
  local lo, hi = MIN_COLUMN, math.max(MIN_COLUMN, unpack(widths))
  if kept == #widths and total(hi) <= budget then
    return kept, false
  end
  while lo < hi do -- the widest cap that fits
    local mid = math.floor((lo + hi + 1) / 2)
    if total(mid) <= budget then
      lo = mid
    else
      hi = mid - 1
    end
  end
  for c = 1, kept do
    widths[c] = math.max(narrowest[c], math.min(widths[c], lo))
  end
  return kept, true
end

local function pad(text, size, right)
  local gap = string.rep(" ", size - width(text))
  if right then
    return gap .. text
  end
  return text .. gap
end

-- numeric_columns marks the columns whose every non-NULL value is a number,
-- to align them right as a spreadsheet does.
-- The engine's numeric type names (a statement's columnTypes: PostgreSQL's,
-- MySQL's, SQLite's declared types), lower-case, without "(10,2)".
local NUMERIC_TYPES = {}
for _, name in ipairs({
  "int2", "int4", "int8", "oid", "float4", "float8", "numeric", "money",
  "tinyint", "smallint", "mediumint", "int", "integer", "bigint", "decimal", "newdecimal",
  "float", "double", "real", "double precision", "year",
  "unsigned tinyint", "unsigned smallint", "unsigned mediumint", "unsigned int", "unsigned bigint",
}) do
  NUMERIC_TYPES[name] = true
end

-- type_numeric says whether a column's type name makes it numeric (true),
-- not numeric (false), or nil when the engine gave none.
local function type_numeric(name)
  if type(name) ~= "string" or name == "" then
    return nil
  end
  name = name:lower():gsub("%s*%(.*$", "")
  return NUMERIC_TYPES[name] == true
end

-- numeric_columns says which columns align right: those of a numeric type
-- (a numeric's 31.70 comes as a string, to keep its scale), and, where the
-- engine gave no type, those whose values are all numbers.
local function numeric_columns(ncols, rows, types)
  local numeric = {}
  for c = 1, ncols do
    local seen = false
    numeric[c] = true
    local by_type = type_numeric(type(types) == "table" and types[c] or nil)
    if by_type ~= nil then
      numeric[c], seen = by_type, true
    end
    for _, row in ipairs(by_type == nil and rows or {}) do
      local v = row[c]
      if v ~= vim.NIL and v ~= nil then
        seen = true
        if type(v) ~= "number" then
          numeric[c] = false
          break
        end
      end
    end
    numeric[c] = numeric[c] and seen
  end
  return numeric
end

-- table renders columns and rows as a Markdown table whose columns line up
-- on screen (widths by display width, so wide characters count double).
-- opts.max_rows caps the rows shown; opts.total is the number of rows the
-- statement returned, when the rows given are not all of them;
-- opts.max_width, when given, is the width the table must fit in: the
-- widest columns are narrowed and their longer cells cut with "…", so that
-- a wide result is not wrapped into an unreadable block. opts.max_cell,
-- when given, is the widest any column gets, its longer cells cut so.
-- opts.types, when given, are the columns' type names (columnTypes), which
-- say which columns are numbers.
-- opts.kept says that the rows are all that was kept of opts.total (a
-- session opened again): the rows past them are not counted as more to
-- see here, the statement's count line says they were not kept.
function M.table(columns, rows, opts)
  opts = opts or {}
  local max_rows = opts.max_rows or 50
  local total = math.max(opts.total or #rows, #rows)
  local shown = {}
  for i = 1, math.min(#rows, max_rows) do
    shown[i] = rows[i]
  end
  local ncols = #columns
  local numeric = numeric_columns(ncols, shown, opts.types)
  local cells, cell_widths, widths = {}, {}, {}
  for c = 1, ncols do
    widths[c] = math.max(3, width(M.cell(columns[c])))
  end
  for r, row in ipairs(shown) do
    cells[r], cell_widths[r] = {}, {}
    for c = 1, ncols do
      local text = M.cell(row[c])
      local w = width(text)
      cells[r][c], cell_widths[r][c] = text, w
      widths[c] = math.max(widths[c], w)
    end
  end
  local all, narrowed = ncols, false
  if opts.max_width then
    ncols, narrowed = fit(widths, opts.max_width)
  end
  if opts.max_cell then
    for c = 1, ncols do
      if widths[c] > opts.max_cell then
        widths[c], narrowed = math.max(opts.max_cell, 3), true
      end
    end
  end
  local function line(values, right, known)
    local parts = {}
    for c = 1, ncols do
      local text = values[c]
      if narrowed then
        text = M.shorten(text, widths[c], known and known[c])
      end
      parts[c] = pad(text, widths[c], right and right[c])
    end
    return "| " .. table.concat(parts, " | ") .. " |"
  end
  local header, rule = {}, {}
  for c = 1, ncols do
    header[c] = M.cell(columns[c])
    rule[c] = string.rep("-", widths[c] + 2)
    if numeric[c] then
      rule[c] = string.rep("-", widths[c] + 1) .. ":"
    end
  end
  local lines = { line(header), "|" .. table.concat(rule, "|") .. "|" }
  for r, row in ipairs(cells) do
    lines[#lines + 1] = line(row, numeric, cell_widths[r])
  end
  local hidden = (opts.kept and #rows or total) - #shown
  if hidden > 0 then
    lines[#lines + 1] = string.format("… %d more row%s", hidden, hidden == 1 and "" or "s")
  end
  if ncols < all then
    local rest = {}
    for c = ncols + 1, all do
      rest[#rest + 1] = M.cell(columns[c])
    end
    local key = opts.more_key or "gl"
    local see = key ~= "" and string.format("%s to see all (%s)", key, table.concat(rest, ", ")) or table.concat(rest, ", ")
    local note = string.format("→ %d more column%s: %s", all - ncols, all - ncols == 1 and "" or "s", see)
    lines[#lines + 1] = M.shorten(note, opts.max_width)
  end
  return lines
end

-- split cuts text into lines; a trailing newline gives a last empty line.
function M.split(text)
  return vim.split(text or "", "\n", { plain = true })
end

-- fence puts text in a fenced code block tagged with lang. The fence is
-- longer than any run of backticks inside, so the block cannot end early.
-- thought renders the model's reasoning: a "Thinking" line, then the text
-- quoted, so that it reads apart from the answer.
function M.thought(text)
  local lines = { "💭 Thinking" }
  for _, line in ipairs(vim.split(text, "\n", { plain = true })) do
    lines[#lines + 1] = "> " .. line
  end
  return lines
end

function M.fence(text, lang)
  local longest = 2
  for run in (text or ""):gmatch("`+") do
    longest = math.max(longest, #run)
  end
  local marks = string.rep("`", longest + 1)
  local lines = { marks .. (lang or "") }
  vim.list_extend(lines, M.split((text or ""):gsub("\n$", "")))
  lines[#lines + 1] = marks
  return lines
end

-- statement renders one SQL statement's outcome: its rows as a table, the
-- rows affected, or why it did not run. A statement still running (status
-- "running", the early rows of a SELECT) shows its first rows with a
-- running mark; opts.stopped says that it will not finish any more. Each
-- warning the engine gave besides the result adds a line under it.
local statement_lines
function M.statement(st, opts)
  local lines = statement_lines(st, opts)
  if type(st.warnings) == "table" then
    for _, w in ipairs(st.warnings) do
      lines[#lines + 1] = "warning: " .. tostring(w)
    end
  end
  return lines
end

statement_lines = function(st, opts)
  opts = opts or {}
  local status = st.status or "success"
  if status == "error" then
    return { "✗ " .. (st.error or "the statement failed") }
  elseif status == "rejected" then
    -- The server's sentence for the user, when it gave one.
    return { "✗ " .. (type(st.error) == "string" and st.error or "Rejected: the statement did not run.") }
  elseif status == "cancelled" then
    -- The statement timeout gives its reason; a cancel by the user says
    -- "cancelled" itself.
    local why = type(st.error) == "string" and st.error or ""
    if why ~= "" and not why:find("^cancelled") then
      return { "✗ cancelled: " .. why }
    end
    return { "✗ cancelled" }
  end
  local columns = st.columns
  if type(columns) ~= "table" or #columns == 0 then
    local n = tonumber(st.rowCount) or 0
    return { string.format("✓ %d row%s affected", n, n == 1 and "" or "s") }
  end
  local rows = type(st.rows) == "table" and st.rows or {}
  -- While it runs, rowCount counts the rows read so far.
  local lines = M.table(columns, rows, { max_rows = opts.max_rows, total = tonumber(st.rowCount), max_width = opts.max_width, more_key = opts.more_key,
    kept = st.kept, types = st.columnTypes })
  local n = tonumber(st.rowCount) or #rows
  local count = string.format("%d row%s", n, n == 1 and "" or "s")
  if st.kept and n > #rows then
    -- A conversation opened again has the rows its session file kept: it
    -- says so, rather than show less in silence.
    lines[#lines + 1] = string.format("(%d of %d rows kept; :AiqRerun for all)", #rows, n)
  elseif status == "running" and opts.stopped then
    lines[#lines + 1] = string.format("(%s read before it stopped)", count)
  elseif status == "running" then
    lines[#lines + 1] = string.format("⏳ %s so far, still running…", count)
  else
    lines[#lines + 1] = string.format("(%s)", count)
  end
  return lines
end

-- chart describes a chart event as text: a horizontal bar per label for
-- bar, line and pie charts, the points for a scatter chart.
function M.chart(chart, opts)
  opts = opts or {}
  local bar_width = opts.bar_width or 30
  local kind = chart.chartType or "bar"
  local title = chart.title ~= nil and chart.title ~= vim.NIL and chart.title ~= "" and chart.title
    or string.format("%s by %s", chart.y or "value", chart.x or "label")
  local lines = { string.format("📊 %s (%s chart)", title, kind) }
  if kind == "scatter" then
    for i, p in ipairs(chart.points or {}) do
      if i > (opts.max_rows or 50) then
        lines[#lines + 1] = string.format("… %d more points", #chart.points - i + 1)
        break
      end
      lines[#lines + 1] = string.format("  (%s, %s)", M.cell(p.x), M.cell(p.y))
    end
    return lines
  end
  local labels, values = chart.labels or {}, chart.values or {}
  local label_width, max, sum = 0, 0, 0
  for i, label in ipairs(labels) do
    label_width = math.max(label_width, width(M.cell(label)))
    local v = tonumber(values[i]) or 0
    max = math.max(max, math.abs(v))
    sum = sum + v
  end
  if opts.max_width then
    -- The bars shrink before a line would wrap: two spaces, the label, a
    -- space, the bar, a space, the value and a pie's share, " (100%)".
    local value_width = 0
    for _, v in ipairs(values) do
      value_width = math.max(value_width, width(M.cell(v)))
    end
    local room = opts.max_width - 4 - label_width - value_width - (kind == "pie" and 7 or 0)
    bar_width = math.max(5, math.min(bar_width, room))
  end
  for i, label in ipairs(labels) do
    local v = tonumber(values[i]) or 0
    local n = max > 0 and math.floor(math.abs(v) / max * bar_width + 0.5) or 0
    local suffix = M.cell(values[i])
    if kind == "pie" and sum ~= 0 then
      suffix = string.format("%s (%.0f%%)", suffix, v / sum * 100)
    end
    lines[#lines + 1] = string.format("  %s %s %s", pad(M.cell(label), label_width), string.rep("█", n), suffix)
  end
  if chart.skipped and chart.skipped ~= vim.NIL and chart.skipped > 0 then
    lines[#lines + 1] = string.format("  (%d rows with NULL skipped)", chart.skipped)
  end
  if chart.truncated == true then
    lines[#lines + 1] = "  (not every row was drawn)"
  end
  return lines
end

-- question renders what the user asked: the question and the selection in
-- a block tagged with its language.
function M.question(query, selection)
  local lines = { "## You" }
  if query and query ~= "" then
    vim.list_extend(lines, M.split(query))
  end
  if selection and selection.text and selection.text ~= "" then
    if query and query ~= "" then
      lines[#lines + 1] = ""
    end
    vim.list_extend(lines, M.fence(selection.text, selection.languageId))
  end
  return lines
end

-- tool_call renders a tool call as the panel shows it live: the SQL in a
-- block, a chart by its result alone, another tool by name and arguments.
function M.tool_call(tool, sql, arguments)
  if type(sql) == "string" then
    return M.fence(sql, "sql")
  elseif tool == "render_chart" then
    return nil
  end
  local args = type(arguments) == "table" and next(arguments) ~= nil and " " .. vim.json.encode(arguments) or ""
  return { string.format("🔧 %s%s", tool or "tool", args) }
end

local function decode(text)
  if type(text) ~= "string" then
    return nil
  end
  local ok, value = pcall(vim.json.decode, text)
  return ok and type(value) == "table" and value or nil
end

-- rows_as_arrays turns rows written as objects keyed by column (as some
-- session files hold them) into arrays in column order.
local function rows_as_arrays(rows, columns)
  local out = {}
  for i, row in ipairs(type(rows) == "table" and rows or {}) do
    if vim.tbl_islist(row) then
      out[i] = row
    else
      out[i] = {}
      for c, name in ipairs(columns) do
        out[i][c] = row[name] == nil and vim.NIL or row[name]
      end
    end
  end
  return out
end

-- stored_statement renders an execute_sql result as the session keeps it
-- ({status, row_count, columns, rows, error}, the model's view) the way a
-- live statement shows. seen, chat/history's entry for the call, is what
-- the user saw of it (the rows the panel got, real values of masked
-- columns included, and the count): shown as it was; where it kept no
-- rows, the session's rows with its count, marked as kept.
local function stored_statement(r, opts, seen)
  local n = tonumber(r.row_count)
  if type(seen) ~= "table" or type(seen.columns) ~= "table" or tonumber(seen.rowCount) == nil then
    seen = nil
  end
  if seen and seen.rowsKept == true then
    return M.statement({
      status = "success",
      rowCount = tonumber(seen.rowCount),
      columns = seen.columns,
      columnTypes = type(seen.columnTypes) == "table" and seen.columnTypes or nil,
      rows = type(seen.rows) == "table" and seen.rows or {},
    }, opts)
  end
  if seen and r.status == "success" then
    n = tonumber(seen.rowCount)
    if r.columns == nil then
      return M.statement({ status = "success", rowCount = n, columns = seen.columns, rows = {}, kept = true }, opts)
    end
  end
  if r.status == "success" and r.columns == nil and r.rows == nil and n then
    -- The AIQ CLI keeps only the count of rows it displayed.
    return { string.format("(%d row%s; the session file keeps no rows)", n, n == 1 and "" or "s") }
  end
  local columns = type(r.columns) == "table" and r.columns or {}
  return M.statement({
    status = r.status,
    -- A refusal's error in the session is written for the model.
    error = r.status ~= "rejected" and r.error or nil,
    rowCount = n,
    columns = columns,
    rows = rows_as_arrays(r.rows, columns),
    kept = true,
  }, opts)
end

-- tool_result renders a stored tool result: the statement's rows, the
-- chart, or nothing for other tools.
local function tool_result(tool, content, opts, seen)
  local r = decode(content)
  if tool == "execute_sql" and r and r.status then
    return stored_statement(r, opts, seen), false
  elseif tool == "render_chart" and r and r.chartType then
    return M.chart(r, opts), true
  end
  return nil
end

-- summaries start the text the server writes as the answer of a turn
-- without a model: its summary of the statement, whose result the panel
-- shows already (conversation/summary.go).
local summaries = {
  "Query executed successfully.",
  "Statement executed successfully.",
  "The query failed: ",
  "The statement was not run: ",
  "The statement was cancelled.",
}

local function is_summary(text)
  for _, prefix in ipairs(summaries) do
    if text:sub(1, #prefix) == prefix then
      return true
    end
  end
  return false
end

-- messages renders chat/history's complete messages (detail "full") as
-- the panel shows the turns live: each question, the SQL the model ran and
-- its table, charts, and the answers. opts.max_rows caps each table. seen
-- is chat/history's what the user saw of each result, by call id.
function M.messages(messages, opts, seen)
  seen = type(seen) == "table" and seen or {}
  local lines = {}
  -- add appends a block, after a blank line unless at the top, after a
  -- blank line or right under a heading, as the panel does live.
  local function add(block, gap)
    local last = lines[#lines]
    if gap and last and last ~= "" and not last:match("^#") then
      lines[#lines + 1] = ""
    end
    vim.list_extend(lines, block)
  end
  -- results are the tool messages that follow message i, by call id: ids
  -- are unique within a turn only (a turn without a model reuses its id).
  local function results(i)
    local found = {}
    for j = i + 1, #messages do
      local m = messages[j]
      if m.role ~= "tool" then
        break
      end
      found[m.tool_call_id or ""] = m
    end
    return found
  end
  messages = messages or {}
  local answering = false -- "## aiq" is shown for this question
  local after_tool = false -- the previous message is a tool result
  for i, m in ipairs(messages) do
    local content = type(m.content) == "string" and m.content or ""
    local summary = after_tool and is_summary(content)
    after_tool = m.role == "tool"
    if m.role == "user" then
      add(M.question(content), #lines > 0)
      answering = false
    elseif m.role == "assistant" then
      if not answering then
        add({ "", "## aiq" })
        answering = true
      end
      if vim.trim(content) ~= "" and not summary then
        add(M.split(content), true)
      end
      -- Each call, then its result, as they came live.
      local answers = results(i)
      for _, call in ipairs(type(m.tool_calls) == "table" and m.tool_calls or {}) do
        local fn = type(call["function"]) == "table" and call["function"] or {}
        local args = decode(fn.arguments)
        local block = M.tool_call(fn.name, fn.name == "execute_sql" and args and args.sql or nil, args)
        if block then
          add(block, true)
        end
        local result = answers[call.id or ""]
        local gap
        block, gap = tool_result(fn.name, result and result.content, opts, seen[call.id or ""])
        if block then
          add(block, gap)
        end
      end
    end
  end
  if lines[1] == "" then
    table.remove(lines, 1)
  end
  return lines
end

return M
