#import <Foundation/Foundation.h>
#import "Tax.h"

static const NSUInteger MaxItems = 10;

/// A cart of prices.
@interface Cart : NSObject
@property (nonatomic, strong) NSMutableArray<NSNumber *> *prices;
- (void)add:(double)price;
- (double)total;
@end

@implementation Cart

- (void)add:(double)price {
    if (self.prices.count >= MaxItems) {
        @throw [NSException exceptionWithName:@"TooMany" reason:@"too many items" userInfo:nil];
    }
    [self.prices addObject:@(price)];
}

- (double)total {
    double sum = 0;
    for (NSNumber *p in self.prices) {
        sum += p.doubleValue;
    }
    return WithTax(sum);
}

- (double)checkout {
    return [self total];
}

@end
