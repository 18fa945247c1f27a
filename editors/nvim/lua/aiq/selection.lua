-- The selection :AiqAsk sends: the text of a range of lines, or of the
-- last charwise visual selection on them, with its language and its LSP
-- position (0-based lines, UTF-16 columns).
local M = {}

-- utf16 counts the UTF-16 code units of s's first bytes bytes, as LSP
-- positions do.
local function utf16(s, bytes)
  local units = 0
  for char in s:sub(1, bytes):gmatch("[%z\1-\127\194-\244][\128-\191]*") do
    units = units + (#char == 4 and 2 or 1)
  end
  return units
end

-- selection reads lines line1..line2 of the current buffer; when they are
-- exactly the last charwise visual selection, only the selected part.
function M.get(line1, line2)
  local buf = vim.api.nvim_get_current_buf()
  local lines = vim.api.nvim_buf_get_lines(buf, line1 - 1, line2, false)
  if #lines == 0 then
    return nil
  end
  local first_col, last_col = 0, #lines[#lines]
  local vs, ve = vim.fn.getpos("'<"), vim.fn.getpos("'>")
  if vim.fn.visualmode() == "v" and vs[2] == line1 and ve[2] == line2 then
    local last = lines[#lines]
    local at = math.min(ve[3], #last)
    local char = last:sub(at):match("^[%z\1-\127\194-\244][\128-\191]*") or ""
    last_col = math.min(at - 1 + #char, #last)
    first_col = math.min(vs[3] - 1, #lines[1])
    lines[#lines] = last:sub(1, last_col)
    lines[1] = lines[1]:sub(first_col + 1)
    if #lines == 1 then
      last_col = first_col + #lines[1]
    end
  end
  local text = table.concat(lines, "\n")
  if vim.trim(text) == "" then
    return nil
  end
  local full = vim.api.nvim_buf_get_lines(buf, line1 - 1, line1, false)[1]
  local full_last = vim.api.nvim_buf_get_lines(buf, line2 - 1, line2, false)[1]
  local sel = {
    text = text,
    languageId = vim.bo[buf].filetype,
    range = {
      start = { line = line1 - 1, character = utf16(full, first_col) },
      ["end"] = { line = line2 - 1, character = utf16(full_last, last_col) },
    },
  }
  if vim.api.nvim_buf_get_name(buf) ~= "" then
    sel.uri = vim.uri_from_bufnr(buf)
  end
  return sel
end

return M
