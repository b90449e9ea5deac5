// ActiveRecord
