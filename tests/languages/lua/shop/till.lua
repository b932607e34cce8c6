-- A class made by `setmetatable({...}, mt)`: the table's functions are its methods (lualine's job wrapper),
-- not the metatable's.
local Till = setmetatable({
  open = function(self)
    self.opened = true
    return self
  end,
  close = function(self)
    self.opened = false
  end,
}, {
  __call = function(self, name)
    return setmetatable({ name = name }, { __index = self })
  end,
})

return Till
