unit Tax;

interface

const
  TaxRate = 0.2;

function WithTax(Amount: Double): Double;

implementation

{ The amount with its tax. }
function WithTax(Amount: Double): Double;
begin
  Result := Amount * (1 + TaxRate);
end;

end.
