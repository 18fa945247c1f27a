-- The chat panel: one scratch buffer, aiq://chat, shown in a split. It is
-- written to while the user works elsewhere, so nothing here moves the
-- focus, and a window whose cursor was at the end keeps following it.
local config = require("aiq.config")

local M = {}

local api = vim.api
local NAME = "aiq://chat"
-- Marks the first line of blocks that are replaced later (M.replace).
local ns = api.nvim_create_namespace("aiq.chat")

local panel = {
  buf = nil,
  running = nil, -- the running indicator's text while a turn runs
  streaming = false, -- the last content line is streamed text still growing
  placeholder = false, -- the one line is a placeholder, gone on the next write
}

local function valid(buf)
  return buf and api.nvim_buf_is_valid(buf)
end

local function set_keymaps(buf)
  local keys = config.options.keymaps
  local function map(lhs, fn, desc)
    if lhs and lhs ~= "" then
      vim.keymap.set("n", lhs, fn, { buffer = buf, silent = true, desc = desc })
    end
  end
  map(keys.cancel, function()
    require("aiq.turn").cancel()
  end, "aiq: cancel the running question")
  map(keys.close, function()
    M.close()
  end, "aiq: close the chat panel")
  map(keys.result, function()
    require("aiq.result").open_at_cursor()
  end, "aiq: open the result under the cursor in a tab")
end

-- buffer returns the panel's buffer, making it on first use.
function M.buffer()
  if valid(panel.buf) then
    return panel.buf
  end
  local existing = vim.fn.bufnr(NAME)
  local buf = existing > 0 and existing or api.nvim_create_buf(false, true)
  api.nvim_buf_set_name(buf, NAME)
  local bo = vim.bo[buf]
  bo.buftype, bo.bufhidden, bo.swapfile = "nofile", "hide", false
  bo.filetype, bo.modifiable = "markdown", false
  -- Markdown's syntax rescans 50 lines above the screen on every redraw,
  -- which on long table lines costs more than all of the plugin's work
  -- (measured by BenchmarkNvimRender500Rows); the panel has no construct
  -- that spans more than a few lines but fenced blocks.
  api.nvim_buf_call(buf, function()
    vim.cmd("silent! syntax sync minlines=10")
  end)
  set_keymaps(buf)
  panel.buf, panel.running, panel.streaming = buf, nil, false
  return buf
end

-- windows lists the panel's windows, in every tab page, or in tab's only.
local function windows(tab)
  local wins = {}
  if not valid(panel.buf) then
    return wins
  end
  for _, win in ipairs(tab and api.nvim_tabpage_list_wins(tab) or api.nvim_list_wins()) do
    if api.nvim_win_get_buf(win) == panel.buf then
      wins[#wins + 1] = win
    end
  end
  return wins
end

-- open shows the panel in a split unless the current tab page shows it
-- already (a question asked in another tab page must not go unseen), and
-- gives the focus back to the window that had it.
function M.open()
  local buf = M.buffer()
  if #windows(api.nvim_get_current_tabpage()) > 0 then
    return
  end
  local previous = api.nvim_get_current_win()
  local opts = config.options.panel
  vim.cmd(opts.split)
  local win = api.nvim_get_current_win()
  api.nvim_win_set_buf(win, buf)
  if opts.split:find("vsplit") then
    api.nvim_win_set_width(win, config.panel_width())
  end
  -- Prose wraps at word ends; tables are cut to the width (M.width), so
  -- that no row wraps. Nothing takes columns from the text.
  local wo = vim.wo[win]
  wo.wrap, wo.linebreak, wo.number, wo.relativenumber, wo.winfixwidth = true, true, false, false, true
  wo.signcolumn, wo.foldcolumn, wo.list = "no", "0", false
  local last = api.nvim_buf_line_count(buf)
  api.nvim_win_set_cursor(win, { last, 0 })
  api.nvim_set_current_win(previous)
end

-- width is the width of the panel's text: its window's, the narrowest
-- when it is shown twice, else the width it would open with.
function M.width()
  local w
  for _, win in ipairs(windows()) do
    w = math.min(w or math.huge, api.nvim_win_get_width(win))
  end
  return w or config.panel_width()
end

function M.close()
  for _, win in ipairs(windows()) do
    if #api.nvim_list_wins() > 1 then
      api.nvim_win_close(win, false)
    end
  end
end

-- write runs fn on the buffer with it modifiable; windows whose cursor was
-- on the last line follow the end.
local function write(fn)
  local buf = M.buffer()
  local following = {}
  local before = api.nvim_buf_line_count(buf)
  for _, win in ipairs(windows()) do
    following[win] = api.nvim_win_get_cursor(win)[1] >= before
  end
  vim.bo[buf].modifiable = true
  local ok, err = pcall(fn, buf)
  vim.bo[buf].modifiable = false
  local after = api.nvim_buf_line_count(buf)
  for win, follow in pairs(following) do
    if follow and api.nvim_win_is_valid(win) then
      api.nvim_win_set_cursor(win, { after, 0 })
    end
  end
  if not ok then
    error(err, 0)
  end
end

-- empty says whether the panel holds nothing but an empty line or the
-- placeholder, which the next block replaces.
local function empty(buf)
  -- Count first: reading every line made each write as slow as the
  -- conversation is long.
  return api.nvim_buf_line_count(buf) == 1
    and (panel.placeholder or api.nvim_buf_get_lines(buf, 0, 1, false)[1] == "")
end

-- content_end is the number of lines before the running indicator.
local function content_end(buf)
  local n = api.nvim_buf_line_count(buf)
  return panel.running and n - 1 or n
end

-- needs_gap tells whether a new block needs a blank line before it: not
-- at the top, after a blank line, or right under a heading.
local function needs_gap(buf)
  local stop = content_end(buf)
  if stop == 0 or empty(buf) then
    return false
  end
  local last = api.nvim_buf_get_lines(buf, stop - 1, stop, false)[1]
  return last ~= "" and not last:match("^#")
end

local function indicator()
  local key = config.options.keymaps.cancel
  local hint = key and key ~= "" and string.format(" (%s to cancel)", key) or ""
  return "⏳ " .. panel.running .. hint
end

-- add appends lines as a new block, after a blank line unless the panel
-- is empty. The running indicator stays last. It returns the block, which
-- M.replace can replace later.
function M.add(lines, opts)
  opts = opts or {}
  local added
  write(function(buf)
    local block = {}
    if opts.gap and needs_gap(buf) then
      block[1] = ""
    end
    vim.list_extend(block, lines)
    local start = content_end(buf)
    if empty(buf) then
      start = 0
      api.nvim_buf_set_lines(buf, 0, 1, false, block)
    else
      api.nvim_buf_set_lines(buf, start, start, false, block)
    end
    if #lines > 0 then
      start = start + #block - #lines
      added = { buf = buf, count = #lines, mark = api.nvim_buf_set_extmark(buf, ns, start, 0, {}) }
    end
  end)
  panel.streaming, panel.placeholder = false, false
  return added
end

-- replace puts lines in the place of a block that M.add returned, wherever
-- later blocks moved it. It returns false when the block is gone (the
-- panel was cleared or remade), and the caller adds the lines instead.
function M.replace(block, lines)
  if not block or block.buf ~= panel.buf or not valid(block.buf) then
    return false
  end
  local row = api.nvim_buf_get_extmark_by_id(block.buf, ns, block.mark, {})[1]
  if not row or row + block.count > content_end(block.buf) then
    return false
  end
  write(function(buf)
    api.nvim_buf_set_lines(buf, row, row + block.count, false, lines)
    api.nvim_buf_set_extmark(buf, ns, row, 0, { id = block.mark })
  end)
  block.count = #lines
  return true
end

-- fold closes a fold over a block that M.add returned, in each window of
-- the panel: the model's reasoning, which the user opens with zo.
function M.fold(block)
  if not block or block.buf ~= panel.buf or not valid(block.buf) or block.count == 0 then
    return
  end
  local row = api.nvim_buf_get_extmark_by_id(block.buf, ns, block.mark, {})[1]
  if not row then
    return
  end
  for _, win in ipairs(windows()) do
    vim.wo[win].foldmethod, vim.wo[win].foldenable = "manual", true
    api.nvim_win_call(win, function()
      vim.cmd(string.format("silent! %d,%dfold", row + 1, row + block.count))
    end)
  end
end

-- block_rows returns the first and last row (0-based) of a block that
-- M.add returned, or nil when it is gone.
function M.block_rows(block)
  if not block or block.buf ~= panel.buf or not valid(block.buf) then
    return nil
  end
  local row = api.nvim_buf_get_extmark_by_id(block.buf, ns, block.mark, {})[1]
  if not row then
    return nil
  end
  return row, row + block.count - 1
end

-- stream appends a piece of streamed text: to the last line while text
-- streams, on a new line after any other block.
function M.stream(text)
  if text == nil or text == "" then
    return
  end
  local pieces = vim.split(text, "\n", { plain = true })
  if not panel.streaming then
    M.add(pieces, { gap = true })
    panel.streaming = true
    return
  end
  write(function(buf)
    local stop = content_end(buf)
    local last = api.nvim_buf_get_lines(buf, stop - 1, stop, false)[1] or ""
    pieces[1] = last .. pieces[1]
    api.nvim_buf_set_lines(buf, stop - 1, stop, false, pieces)
  end)
end

-- set_running shows the running indicator with text, or removes it when
-- text is nil.
function M.set_running(text)
  write(function(buf)
    local n = api.nvim_buf_line_count(buf)
    if panel.running and not text then
      api.nvim_buf_set_lines(buf, n - 1, n, false, {})
    elseif text then
      local had = panel.running
      panel.running = text
      if had then
        api.nvim_buf_set_lines(buf, n - 1, n, false, { indicator() })
      elseif empty(buf) then
        api.nvim_buf_set_lines(buf, 0, 1, false, { indicator() })
        panel.placeholder = false
      else
        api.nvim_buf_set_lines(buf, n, n, false, { indicator() })
      end
    end
  end)
  if not text then
    panel.running = nil
  end
end

function M.is_running()
  return panel.running ~= nil
end

-- set_lines replaces the conversation with lines.
function M.set_lines(lines)
  write(function(buf)
    api.nvim_buf_clear_namespace(buf, ns, 0, -1)
    api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  end)
  panel.running, panel.streaming, panel.placeholder = nil, false, false
end

-- prepend puts lines above what the panel shows, after a blank line: a
-- restored conversation arrives after the first question was shown, and
-- belongs before it. The blocks below keep their marks.
function M.prepend(lines)
  if #lines == 0 then
    return
  end
  write(function(buf)
    if empty(buf) then
      api.nvim_buf_set_lines(buf, 0, 1, false, lines)
      panel.placeholder = false
    else
      local block = vim.list_extend(vim.list_extend({}, lines), { "" })
      api.nvim_buf_set_lines(buf, 0, 0, false, block)
    end
  end)
end

-- set_placeholder shows text alone, until the next block replaces it.
function M.set_placeholder(text)
  M.set_lines({ text })
  panel.placeholder = true
end

function M.clear()
  M.set_lines({})
  -- The results shown are gone with their lines.
  local result = package.loaded["aiq.result"]
  if result then
    result.forget()
  end
end

-- lines returns the panel's lines, for tests and screenshots.
function M.lines()
  if not valid(panel.buf) then
    return {}
  end
  return api.nvim_buf_get_lines(panel.buf, 0, -1, false)
end

return M
