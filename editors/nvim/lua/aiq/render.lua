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
    -- Integers arrive as Lua numbers: show 42, not 42.0 or 4.2e+01.
    if value == math.floor(value) and math.abs(value) < 1e15 then
      return string.format("%d", value)
    end
    return tostring(value)
  elseif kind == "string" then
    return (value:gsub("\r?\n", "⏎"):gsub("\t", " "))
  elseif kind == "table" then
    return vim.json.encode(value)
  end
  return tostring(value)
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
local function numeric_columns(ncols, rows)
  local numeric = {}
  for c = 1, ncols do
    local seen = false
    numeric[c] = true
    for _, row in ipairs(rows) do
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
-- statement returned, when the rows given are not all of them.
function M.table(columns, rows, opts)
  opts = opts or {}
  local max_rows = opts.max_rows or 50
  local total = math.max(opts.total or #rows, #rows)
  local shown = {}
  for i = 1, math.min(#rows, max_rows) do
    shown[i] = rows[i]
  end
  local ncols = #columns
  local numeric = numeric_columns(ncols, shown)
  local cells, widths = {}, {}
  for c = 1, ncols do
    widths[c] = math.max(3, width(M.cell(columns[c])))
  end
  for r, row in ipairs(shown) do
    cells[r] = {}
    for c = 1, ncols do
      cells[r][c] = M.cell(row[c])
      widths[c] = math.max(widths[c], width(cells[r][c]))
    end
  end
  local function line(values, right)
    local parts = {}
    for c = 1, ncols do
      parts[c] = pad(values[c], widths[c], right and right[c])
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
  for _, row in ipairs(cells) do
    lines[#lines + 1] = line(row, numeric)
  end
  local hidden = total - #shown
  if hidden > 0 then
    lines[#lines + 1] = string.format("… %d more row%s", hidden, hidden == 1 and "" or "s")
  end
  return lines
end

-- split cuts text into lines; a trailing newline gives a last empty line.
function M.split(text)
  return vim.split(text or "", "\n", { plain = true })
end

-- fence puts text in a fenced code block tagged with lang. The fence is
-- longer than any run of backticks inside, so the block cannot end early.
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
-- rows affected, or why it did not run.
function M.statement(st, opts)
  opts = opts or {}
  local status = st.status or "success"
  if status == "error" then
    return { "✗ " .. (st.error or "the statement failed") }
  elseif status == "rejected" then
    return { "✗ rejected: the statement did not run" }
  elseif status == "cancelled" then
    return { "✗ cancelled" }
  end
  local columns = st.columns
  if type(columns) ~= "table" or #columns == 0 then
    local n = tonumber(st.rowCount) or 0
    return { string.format("✓ %d row%s affected", n, n == 1 and "" or "s") }
  end
  local rows = type(st.rows) == "table" and st.rows or {}
  local lines = M.table(columns, rows, { max_rows = opts.max_rows, total = tonumber(st.rowCount) })
  local n = tonumber(st.rowCount) or #rows
  lines[#lines + 1] = string.format("(%d row%s)", n, n == 1 and "" or "s")
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

-- history renders chat/history's turns as the panel shows a conversation.
function M.history(turns)
  local lines = {}
  for _, turn in ipairs(turns or {}) do
    if #lines > 0 then
      lines[#lines + 1] = ""
    end
    lines[#lines + 1] = turn.role == "user" and "## You" or "## aiq"
    local content = turn.content
    if type(content) ~= "string" then
      content = M.cell(content)
    end
    vim.list_extend(lines, M.split(content))
  end
  return lines
end

return M
