-- :AiqAllowances: what "Allow always" covers in the session, and revoking.
local server = require("aiq.server")
local session = require("aiq.session")

local M = {}

-- describe says what is in force, after the sentence done.
local function describe(list, done)
  local lines = {}
  if done then
    table.insert(lines, done)
  end
  if #list == 0 then
    table.insert(lines, 'No "Allow always" is in force: every statement that writes asks first.')
    return table.concat(lines, " ")
  end
  table.insert(lines, '"Allow always" covers, in this session only:')
  for _, a in ipairs(list) do
    table.insert(lines, string.format("  %s: %s", a.id, a.scope))
  end
  table.insert(lines, "End one with :AiqAllowances revoke ID, or all with :AiqAllowances revoke all.")
  return table.concat(lines, "\n")
end

-- run lists the allowances, or with "revoke ID" (or "revoke all") ends
-- one and lists the rest.
function M.run(args)
  local verb, id = (args or ""):match("^%s*(%S*)%s*(%S*)%s*$")
  if verb ~= "" and (verb ~= "revoke" or id == "") then
    return server.notify("usage: :AiqAllowances, or :AiqAllowances revoke ID (or all)", vim.log.levels.ERROR)
  end
  session.with_session(function(sid, err)
    if not sid then
      return server.report(err)
    end
    local method, params, done = "chat/allowances", { sessionId = sid }, nil
    if verb == "revoke" then
      method, params.id = "chat/revoke", id
      done = id == "all" and "Revoked them all." or ("Revoked " .. id .. ".")
    end
    server.conn:request(method, params, function(e, result)
      if e then
        return server.report(e)
      end
      server.notify(describe(result.allowances or {}, done))
    end)
  end)
end

return M
