-- What :AiqAsk sends as the selection: whole lines for a linewise range,
-- the selected characters for a charwise visual selection, with LSP
-- positions (0-based lines, UTF-16 columns). No server needed.
local T = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/helper.lua")
local aiq = require("aiq")

T.run(function()
  local buf = T.sql_buffer({ "-- 𝔸 note", "SELECT 漢字, n", "FROM t;" }, T.env.AIQ_TEST_TMP .. "/q.sql")

  -- Linewise: lines 2 and 3 whole.
  vim.cmd("normal! 2GVj\27")
  local sel = aiq.selection(2, 3)
  T.eq(sel.text, "SELECT 漢字, n\nFROM t;", "a linewise selection")
  T.eq(sel.languageId, "sql", "the language")
  T.eq(sel.uri, vim.uri_from_bufnr(buf), "the uri")
  T.eq(sel.range, { start = { line = 1, character = 0 }, ["end"] = { line = 2, character = 7 } }, "a linewise range")

  -- Charwise on one line: "漢字" (bytes 8..13), UTF-16 columns 7..9.
  vim.cmd("normal! 2G8|vl\27")
  sel = aiq.selection(2, 2)
  T.eq(sel.text, "漢字", "a charwise selection of wide characters")
  T.eq(sel.range, { start = { line = 1, character = 7 }, ["end"] = { line = 1, character = 9 } }, "a charwise range")

  -- A character outside the BMP counts two UTF-16 units.
  vim.cmd("normal! 1G4|v$\27")
  sel = aiq.selection(1, 1)
  T.eq(sel.text, "𝔸 note", "a selection to the end of the line")
  T.eq(sel.range, { start = { line = 0, character = 3 }, ["end"] = { line = 0, character = 10 } }, "a range past a surrogate pair")

  -- A range given on the command line, not the last visual selection:
  -- whole lines.
  sel = aiq.selection(3, 3)
  T.eq(sel.text, "FROM t;", "a range that is not the visual selection")

  -- Blank lines are no selection.
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, { "", "  " })
  T.eq(aiq.selection(1, 2), nil, "a blank selection")
end)
