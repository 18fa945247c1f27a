-- The connection to one aiq-rpc process: it spawns the server on first
-- use, initializes it, queues requests until it is ready, and speaks
-- JSON-RPC through vim.lsp.rpc. It shows no UI beyond the one message that
-- says the server could not start or stopped.
local M = {}

M.version = "0.1.0"

-- clone is the aiq-rpc clone this plugin is a folder of (editors/nvim),
-- or nil when the plugin was copied elsewhere.
local function clone()
  local here = debug.getinfo(1, "S").source:sub(2) -- <clone>/editors/nvim/lua/aiq/rpc.lua
  local root = vim.fn.fnamemodify(here, ":p:h:h:h:h:h")
  if vim.fn.isdirectory(root .. "/cmd/aiq-rpc") == 1 then
    return root
  end
end

-- install_hint says how to install the server: from the clone, as the
-- module is not published.
function M.install_hint()
  return string.format("cd %s && go install ./cmd/aiq-rpc", clone() or "<your clone of aiq-rpc>")
end

-- go_bins are the folders go install writes to, which an editor started
-- from a desktop may not have on $PATH: $GOBIN, $GOPATH/bin, ~/go/bin.
local function go_bins()
  local dirs = {}
  local function add(label, dir)
    if dir and dir ~= "" then
      dirs[#dirs + 1] = { label = label, dir = dir }
    end
  end
  add("$GOBIN", vim.env.GOBIN)
  local gopath = vim.env.GOPATH
  if gopath and gopath ~= "" then
    add("$GOPATH/bin", vim.split(gopath, ":", { plain = true })[1] .. "/bin")
  end
  local home = vim.env.HOME
  if home and home ~= "" then
    add("~/go/bin", home .. "/go/bin")
  end
  return dirs
end

-- find returns the server's executable path for the option server, or ""
-- and where it looked, in words: a name is looked for on $PATH, then in
-- the folders go install writes to.
function M.find(server)
  local cmd = vim.fn.expand(server)
  if cmd:find("/", 1, true) then
    return vim.fn.exepath(cmd), "'" .. cmd .. "' was not found or is not executable"
  end
  local path = vim.fn.exepath(cmd)
  if path ~= "" then
    return path
  end
  local places = { "on $PATH" }
  for _, d in ipairs(go_bins()) do
    local candidate = d.dir .. "/" .. cmd
    if vim.fn.executable(candidate) == 1 then
      return candidate
    end
    places[#places + 1] = string.format("in %s (%s)", d.label, d.dir)
  end
  local where = places[#places]
  if #places > 1 then
    where = table.concat(places, ", ", 1, #places - 1) .. " or " .. where
  end
  return "", string.format("'%s' was not found %s", cmd, where)
end

-- STOPPED is the code of the error given to the callbacks of requests that
-- were pending when the server stopped. It is not a protocol code.
M.STOPPED = -32099

local uv = vim.uv or vim.loop

local MAX_LOG = 5 * 1024 * 1024

local Conn = {}
Conn.__index = Conn

-- new returns a stopped connection. options() gives the current setup
-- options (server, home, source, args, log_file); handlers has notification(method, params),
-- server_request(method, params) -> result, err, and on_exit().
function M.new(options, handlers)
  return setmetatable({
    options = options,
    handlers = handlers,
    state = "stopped", -- stopped, starting, ready
    queue = {}, -- requests made before the server was ready
    pending = {}, -- sent requests by id
    info = nil, -- initialize's result
  }, Conn)
end

-- spawn starts the process through vim.lsp.rpc, whose signature changed
-- in Neovim 0.10: start(cmd, args, dispatchers) before, start({cmd, ...},
-- dispatchers) since.
local function spawn(path, args, dispatchers)
  if vim.fn.has("nvim-0.10") == 1 then
    local cmd = { path }
    vim.list_extend(cmd, args)
    return pcall(vim.lsp.rpc.start, cmd, dispatchers)
  end
  return pcall(vim.lsp.rpc.start, path, args, dispatchers)
end

local function terminate(client)
  if client.terminate then
    client.terminate()
  elseif client.handle and not client.handle:is_closing() then
    client.handle:kill(15)
  end
end

local function file_size(path)
  local stat = uv.fs_stat(path)
  return stat and stat.size or 0
end

-- read_from returns the text of path after offset, at most limit bytes
-- from its end.
local function read_from(path, offset, limit)
  local fd = uv.fs_open(path, "r", 438)
  if not fd then
    return ""
  end
  local size = (uv.fs_fstat(fd) or {}).size or 0
  local start = math.max(offset, size - limit)
  local data = size > start and uv.fs_read(fd, size - start, start) or ""
  uv.fs_close(fd)
  return data or ""
end

-- capture runs cmd once more with no input and returns what it printed,
-- for a server that died before it wrote its log. It is bounded: a server
-- that starts fine ends at once on its empty stdin.
local function capture(cmd)
  local out = {}
  local function keep(_, data)
    for _, line in ipairs(data or {}) do
      if line ~= "" then
        out[#out + 1] = line
      end
    end
  end
  local ok, job = pcall(vim.fn.jobstart, cmd, {
    stdin = "null",
    stdout_buffered = true,
    stderr_buffered = true,
    on_stdout = keep,
    on_stderr = keep,
  })
  if not ok or job <= 0 then
    return ""
  end
  if vim.fn.jobwait({ job }, 5000)[1] == -1 then
    vim.fn.jobstop(job)
  end
  return table.concat(out, "\n")
end

local function trim(text, max_lines)
  local lines = vim.split(vim.trim(text or ""), "\n", { plain = true })
  if #lines > max_lines then
    lines = vim.list_slice(lines, #lines - max_lines + 1)
  end
  return table.concat(lines, "\n")
end

local function exit_reason(code, signal)
  if signal and signal ~= 0 then
    return string.format("was killed by signal %d", signal)
  end
  return string.format("exited with status %d", code or -1)
end

function Conn:command()
  local o = self.options()
  local path, not_found = M.find(o.server)
  local args = {}
  if o.home then
    vim.list_extend(args, { "--home", vim.fn.expand(o.home) })
  end
  vim.list_extend(args, o.args or {})
  return path, args, not_found
end

-- fail_start tells the user, in one message, which server was tried, what
-- it printed and how to install it.
function Conn:fail_start(tried, reason, printed)
  local lines = { string.format("aiq: could not start aiq-rpc: %s.", vim.trim(tried .. " " .. reason)) }
  printed = trim(printed, 15)
  if printed ~= "" then
    lines[#lines + 1] = "It printed:"
    lines[#lines + 1] = printed
  end
  lines[#lines + 1] = "Install it from the clone: " .. M.install_hint()
  lines[#lines + 1] = "or give its path: require('aiq').setup({ server = '/path/to/aiq-rpc' })"
  require("aiq.message").show(table.concat(lines, "\n"), vim.log.levels.ERROR)
end

-- start spawns and initializes the server; requests wait in the queue
-- until it is ready.
function Conn:start()
  if self.state ~= "stopped" then
    return true
  end
  local o = self.options()
  local path, args, not_found = self:command()
  if path == "" then
    self:fail_start(not_found, "", "")
    self:flush("aiq-rpc could not start")
    return false
  end
  local log_file = o.log_file
  vim.fn.mkdir(vim.fn.fnamemodify(log_file, ":h"), "p")
  -- The server appends to its log; start afresh once it is big.
  if file_size(log_file) > MAX_LOG then
    os.remove(log_file)
  end
  local log_offset = file_size(log_file)
  local spawn_args = { "--log-file", log_file }
  vim.list_extend(spawn_args, args)

  local client
  local dispatchers = {
    notification = function(method, params)
      self.handlers.notification(method, params)
    end,
    server_request = function(method, params)
      return self.handlers.server_request(method, params)
    end,
    -- Called from the event loop, not the main one: schedule.
    on_exit = function(code, signal)
      vim.schedule(function()
        self:on_exit(client, code, signal)
      end)
    end,
  }
  local ok, started = spawn(path, spawn_args, dispatchers)
  if not ok or not started then
    self:fail_start(path, "could not be run", tostring(started or ""))
    self:flush("aiq-rpc could not start")
    return false
  end
  client = started
  self.client, self.state, self.info = client, "starting", nil
  self.start_info = { path = path, args = args, log_file = log_file, log_offset = log_offset }
  client.request("initialize", {
    clientInfo = { name = "aiq.nvim", version = M.version },
    capabilities = { confirm = true, rowsOnce = true },
    options = o.source and { source = o.source } or vim.empty_dict(),
  }, function(err, result)
    if client ~= self.client then
      return
    end
    if err then
      self.failed_init = true
      self:fail_start(path, "refused to start", err.message or tostring(err))
      terminate(client)
      return
    end
    self.state, self.info = "ready", result
    local queue = self.queue
    self.queue = {}
    for _, req in ipairs(queue) do
      self:send(req)
    end
  end)
  return true
end

function Conn:on_exit(client, code, signal)
  if client ~= self.client then
    return
  end
  local was = self.state
  self.client, self.state = nil, "stopped"
  local s = self.start_info or {}
  if self.stopping then
    self.stopping = false
  elseif self.failed_init then
    self.failed_init = false
  elseif was == "starting" then
    local printed = read_from(s.log_file, s.log_offset, 4000)
    if vim.trim(printed) == "" then
      local cmd = { s.path }
      vim.list_extend(cmd, s.args)
      printed = capture(cmd)
    end
    self:fail_start(s.path, exit_reason(code, signal), printed)
  else
    require("aiq.message").show(
      string.format("aiq: aiq-rpc %s; the next command restarts it.\nIts log: %s", exit_reason(code, signal), s.log_file),
      vim.log.levels.ERROR
    )
  end
  self:flush("aiq-rpc stopped")
  self.handlers.on_exit()
end

-- flush ends every waiting request with a STOPPED error, so that nothing
-- waits forever on a dead server.
function Conn:flush(message)
  local waiting = {}
  for _, req in pairs(self.pending) do
    waiting[#waiting + 1] = req
  end
  vim.list_extend(waiting, self.queue)
  self.pending, self.queue = {}, {}
  table.sort(waiting, function(a, b)
    return (a.seq or 0) < (b.seq or 0)
  end)
  for _, req in ipairs(waiting) do
    self:finish(req, { code = M.STOPPED, message = message, stopped = true }, nil)
  end
end

function Conn:finish(req, err, result)
  if req.done then
    return
  end
  -- Neovim is quitting: the user needs no message about requests cut short.
  if err and self.stopping then
    err.stopped = true
  end
  req.done = true
  if req.id then
    self.pending[req.id] = nil
  end
  req.cb(err, result)
end

function Conn:send(req)
  local ok, id = self.client.request(req.method, req.params, function(err, result)
    self:finish(req, err, result)
  end)
  if not ok then
    self:finish(req, { code = M.STOPPED, message = "aiq-rpc stopped", stopped = true }, nil)
    return
  end
  req.id = id
  self.pending[id] = req
end

local seq = 0

-- request sends method once the server is ready, starting it if needed,
-- and calls cb(err, result) exactly once. It returns the request, whose id
-- is set once sent.
function Conn:request(method, params, cb)
  seq = seq + 1
  local req = { method = method, params = params, cb = cb, seq = seq }
  if self.state == "ready" then
    self:send(req)
  else
    table.insert(self.queue, req)
    if self.state == "stopped" then
      self:start()
    end
  end
  return req
end

-- request_sync waits up to timeout ms for the result, for completion
-- functions that must answer at once. It returns result, err.
function Conn:request_sync(method, params, timeout)
  local done, res, e = false, nil, nil
  self:request(method, params, function(err, result)
    done, res, e = true, result, err
  end)
  if not vim.wait(timeout or 3000, function()
    return done
  end, 10) then
    return nil, { message = method .. " did not answer in time" }
  end
  return res, e
end

-- cancel asks the server to stop req. Neovim 0.7's client has no cancel
-- helper, so the notification is sent by hand.
function Conn:cancel(req)
  if req.done then
    return false
  end
  if req.id and self.client then
    return self.client.notify("$/cancelRequest", { id = req.id })
  end
  for i, queued in ipairs(self.queue) do
    if queued == req then
      table.remove(self.queue, i)
      self:finish(req, { code = -32800, message = "cancelled" }, nil)
      return true
    end
  end
  return false
end

-- ready waits up to timeout ms for the server to be initialized, starting
-- it if needed, and returns initialize's result or nil.
function Conn:ready(timeout)
  if self.state == "stopped" and not self:start() then
    return nil
  end
  vim.wait(timeout or 3000, function()
    return self.state ~= "starting"
  end, 10)
  return self.state == "ready" and self.info or nil
end

-- shutdown ends the server politely: it saves its sessions on shutdown.
function Conn:shutdown(timeout)
  local client = self.client
  if not client then
    return
  end
  self.stopping = true
  if self.state ~= "ready" then
    terminate(client)
    return
  end
  local done = false
  client.request("shutdown", nil, function()
    done = true
  end)
  vim.wait(timeout or 2000, function()
    return done
  end, 10)
  client.notify("exit", nil)
end

return M
