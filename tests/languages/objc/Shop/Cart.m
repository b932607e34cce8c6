#import <Foundation/Foundation.h>
#import "Tax.h"

static const NSUInteger MaxItems = 10;

/// A cart of prices.
@interface Cart : NSObject
@property (nonatomic, strong) NSMutableArray<NSNumber *> *prices;
#if CART_HAS_METRICS
@property (nonatomic, strong) NSURLSessionTaskMetrics *metrics API_AVAILABLE(ios(10), macosx(10.12));
#endif
- (void)add:(double)price;
- (double)total;
- (double)totalWithTip:(double)tip API_AVAILABLE(ios(13), macos(10.15));
@end

@implementation Cart

- (void)add:(double)price {
    if (self.prices.count >= MaxItems) {
        @throw [NSException exceptionWithName:@"TooMany" reason:@"too many items" userInfo:nil];
    }
    [self.prices addObject:@(price)];
}

- (double)totalWithTip:(double)tip API_AVAILABLE(ios(13), macos(10.15))
{
    return [self total] + tip;
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
