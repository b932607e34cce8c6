unit Cart;

interface

uses SysUtils, Tax;

type
  { A cart of prices. }
  TCart = class
  private
    FCount: Integer;
    FSum: Double;
  public
    procedure Add(Price: Double);
    function Total: Double;
  end;

implementation

procedure TCart.Add(Price: Double);
begin
  if FCount >= 10 then
    raise Exception.Create('''Add'': too many items');
  Inc(FCount);
  FSum := FSum + Price;
end;

function TCart.Total: Double;
begin
  Result := WithTax(FSum);
end;

end.
